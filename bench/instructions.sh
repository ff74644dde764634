#!/usr/bin/env bash
# Prints the instructions per operation of each benchmark PATTERN names,
# counted by valgrind's callgrind (apt-get install valgrind), which, unlike
# time, does not drift with what else the machine is doing. A benchmark is
# run for N and for 2N iterations, and the difference is divided by N, so
# that setting up (building the inputs, compiling santhosh's schemas)
# cancels out; the collector runs as usual, so its share is counted.
#
# With INSIDE set to a function's name, only the instructions run inside
# calls of it are counted (callgrind's --toggle-collect): for a call that
# allocates nothing, such as Scan's, this leaves out the collector's
# cycles, which the setup's garbage otherwise spreads unevenly over the
# N and 2N runs.
#
# usage: [INSIDE=FUNC] ./instructions.sh PATTERN [N]
#   ./instructions.sh 'Decode/schema=.*/input=realistic/impl=(catalogue|ogen)$' 50000
#   INSIDE='github.com/fleetkit/catalogue/internal/jsontext.CheckCause' \
#     ./instructions.sh 'Scan/schema=.*/input=realistic/impl=catalogue$' 20000
set -euo pipefail
cd "$(dirname "$0")"
pattern=${1:?usage: ./instructions.sh PATTERN [N]}
n=${2:-20000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/bench.test" .
# anchored makes a benchmark's name a pattern that matches it alone: -bench
# matches each level of a name apart, unanchored, so input=meta1000 would
# also run input=meta1000shuffled, and BenchmarkScan any BenchmarkScanX.
anchored() {
	printf '^%s$' "$(printf '%s' "$1" | sed 's|/|$/^|g')"
}
count() { # benchmark, iterations
	GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind ${INSIDE:+--toggle-collect="$INSIDE"} \
		--callgrind-out-file="$dir/out" "$dir/bench.test" \
		-test.run '^$' -test.bench "$(anchored "Benchmark$1")" -test.benchtime "${2}x" >/dev/null 2>"$dir/err"
	grep -a -o 'Collected : [0-9]*' "$dir/err" | awk '{print $3}'
}
for name in $("$dir/bench.test" -test.run '^$' -test.bench "$pattern" -test.benchtime 1x |
	awk '/^Benchmark/ {sub(/^Benchmark/, "", $1); sub(/-[0-9]+$/, "", $1); print $1}'); do
	a=$(count "$name" "$n")
	b=$(count "$name" $((2 * n)))
	echo "$name $(((b - a) / n))"
done
