#!/usr/bin/env bash
# Runs every benchmark of this module in rounds, one go test process a
# round, so that each implementation's samples are spread over the whole
# run: on a shared machine, whose speed drifts over minutes, the drift then
# falls on every implementation alike instead of on whichever ran when the
# machine was slow (go test -count N runs a benchmark's N samples back to
# back). Writes the raw output to FILE and prints the table of medians and
# ratios that cmd/ratio makes of it.
#
# With a PATTERN, only the benchmarks it names (go test -bench PATTERN)
# run, and BenchmarkStream on one core is left out.
#
# usage: ./run.sh [ROUNDS [FILE [PATTERN]]]    (default: 10 rounds, new.txt, all)
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-10}
out=${2:-new.txt}
pattern=${3:-.}
: >"$out"
for i in $(seq "$rounds"); do
	echo "run.sh: round $i of $rounds" >&2
	go test -run '^$' -bench "$pattern" -benchtime 0.5s -timeout 30m >>"$out"
	if [ "$pattern" = . ]; then
		# Stream checking on one core, for the ratio to santhosh's.
		go test -run '^$' -bench Stream -cpu 1 -benchtime 0.5s >>"$out"
	fi
done
go run ./cmd/ratio "$out"
