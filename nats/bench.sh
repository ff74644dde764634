#!/usr/bin/env bash
# bench.sh: the README's table. Rounds of one test process each, every
# benchmark once per round at -cpu 1 and 2, so that a drift in the
# machine's load falls on every row alike; prints each row's median.
#   ./bench.sh [rounds]   (default 5)
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-5}
go test -c -o /tmp/catnats-bench.test .
out=$(mktemp)
for r in $(seq "$rounds"); do
	/tmp/catnats-bench.test -test.run '^$' -test.bench 'Gate|Publish' -test.benchtime 20000x -test.cpu 1,2 | grep '^Benchmark' | tee -a "$out" >&2
done
# name ns/op MB/s msgs/s: the median of each.
awk '{ n[$1]++; ns[$1, n[$1]] = $3; mb[$1, n[$1]] = $5; ms[$1, n[$1]] = $7 }
function median(a, k, c,   i, j, t, v) {
	for (i = 1; i <= c; i++) v[i] = a[k, i]
	for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
	return v[int((c + 1) / 2)]
}
END {
	printf "| benchmark | ns/op | MB/s | msgs/s |\n|---|---:|---:|---:|\n"
	for (k in n) printf "| %s | %s | %s | %s |\n", k, median(ns, k, n[k]), median(mb, k, n[k]), median(ms, k, n[k])
}' "$out" | sort
rm -f "$out"
