#!/usr/bin/env bash
# bench.sh: the README's table. Rounds of one test process each, at -cpu
# 1 and 2, of BenchmarkGate (which itself interleaves the gate and the
# independent raw copy, four rounds each, and reports their ratio) and
# BenchmarkPublish, the order of the two reversed every other round so
# that a drift in the machine's load falls on every row alike. Prints the
# median of each row's figures over the rounds.
#   ./bench.sh [rounds] [messages]   (default 5 rounds of 20000 messages)
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-5}
n=${2:-20000}
go test -c -o /tmp/catnats-bench.test .
out=$(mktemp)
runs=('^BenchmarkGate$' '^BenchmarkPublish$')
for r in $(seq "$rounds"); do
	order=("${runs[@]}")
	if ((r % 2 == 0)); then
		order=("${runs[1]}" "${runs[0]}")
	fi
	for run in "${order[@]}"; do
		/tmp/catnats-bench.test -test.run '^$' -test.bench "$run" -test.benchtime "${n}x" -test.cpu 1,2 | grep '^Benchmark' | tee -a "$out" >&2
	done
done
# Each line: name, iterations, then value-unit pairs. The median of each
# unit of each row.
awk '{
	for (i = 3; i < NF; i += 2) { k = $1 SUBSEP $(i + 1); c[k]++; v[k, c[k]] = $i; units[$1] = units[$1] " " $(i + 1) }
	rows[$1] = 1
}
function median(k,   i, j, t, n, a) {
	n = c[k]
	for (i = 1; i <= n; i++) a[i] = v[k, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return a[int((n + 1) / 2)]
}
END {
	for (r in rows) {
		line = r
		split(units[r], us, " ")
		delete seen
		for (u in us) if (!(us[u] in seen)) { seen[us[u]] = 1; line = line "  " median(r SUBSEP us[u]) " " us[u] }
		print line
	}
}' "$out" | sort
rm -f "$out"
