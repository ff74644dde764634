#!/usr/bin/env bash
# bench.sh: the README's table. Rounds of one test process per benchmark
# and mode, each at -cpu 1 and 2, so that every row runs in the same
# conditions: a mode never follows the other in its process (the later
# one runs slower), and a drift in the machine's load falls on every row
# alike, the order of the processes reversed every other round. Prints
# each row's median.
#   ./bench.sh [rounds]   (default 5)
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-5}
go test -c -o /tmp/catnats-bench.test .
out=$(mktemp)
runs=('Gate$/^validate$' 'Gate$/^passthrough$' 'Publish$/^validate$' 'Publish$/^novalidate$')
for r in $(seq "$rounds"); do
	order=("${runs[@]}")
	if ((r % 2 == 0)); then
		order=("${runs[1]}" "${runs[0]}" "${runs[3]}" "${runs[2]}")
	fi
	for run in "${order[@]}"; do
		/tmp/catnats-bench.test -test.run '^$' -test.bench "^Benchmark$run" -test.benchtime 20000x -test.cpu 1,2 | grep '^Benchmark' | tee -a "$out" >&2
	done
done
# name ns/op MB/s msgs/s: the median of each.
printf '| benchmark | ns/op | MB/s | msgs/s |\n|---|---:|---:|---:|\n'
awk '{ n[$1]++; ns[$1, n[$1]] = $3; mb[$1, n[$1]] = $5; ms[$1, n[$1]] = $7 }
function median(a, k, c,   i, j, t, v) {
	for (i = 1; i <= c; i++) v[i] = a[k, i]
	for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
	return v[int((c + 1) / 2)]
}
END {
	for (k in n) printf "| %s | %s | %s | %s |\n", k, median(ns, k, n[k]), median(mb, k, n[k]), median(ms, k, n[k])
}' "$out" | sort
rm -f "$out"
