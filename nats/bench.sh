#!/usr/bin/env bash
# bench.sh: the README's tables. Rounds of one test process each, at -cpu
# 1 and 2, of BenchmarkGateApart (the server in a process of its own, as
# an operator runs it), BenchmarkGate (the server in the benchmark's
# process) and BenchmarkPublish, their order turned every round so that a
# drift in the machine's load falls on every row alike. Each of the first
# two itself interleaves the gate and the independent raw copies, four
# rounds each, and reports their ratios. Prints, as Markdown tables, the
# median of each figure over the rounds, and the machine's load before
# and after. About 6 minutes on 2 idle cores at its defaults.
#   ./bench.sh [rounds] [messages]   (default 3 rounds of 20000 messages)
# Every figure of every round goes to standard error as it comes.
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-3}
n=${2:-20000}
bin=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$bin" "$out"' EXIT
go test -c -o "$bin/nats.test" .
load0=$(cut -d' ' -f1-3 /proc/loadavg)
runs=('^BenchmarkGateApart$' '^BenchmarkGate$' '^BenchmarkPublish$')
for r in $(seq "$rounds"); do
	order=()
	for i in "${!runs[@]}"; do
		order+=("${runs[$(((i + r) % ${#runs[@]}))]}")
	done
	for run in "${order[@]}"; do
		"$bin/nats.test" -test.run '^$' -test.bench "$run" -test.benchtime "${n}x" -test.cpu 1,2 | grep '^Benchmark' | tee -a "$out" >&2
	done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
# Each line: name, iterations, then value-unit pairs. The median of each
# unit of each row, and then the tables.
awk -v rounds="$rounds" -v n="$n" -v load0="$load0" -v load1="$load1" -v cores="$(nproc)" -v gover="$(go env GOVERSION)" '
{
	for (i = 3; i < NF; i += 2) { k = $1 SUBSEP $(i + 1); c[k]++; v[k, c[k]] = $i }
}
function median(k,   i, j, t, m, a) {
	m = c[k]
	if (m == 0) return ""
	for (i = 1; i <= m; i++) a[i] = v[k, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return a[int((m + 1) / 2)]
}
# f formats the median of a unit of a row: d decimals.
function f(row, unit, d,   x) {
	x = median(row SUBSEP unit)
	return x == "" ? "-" : sprintf("%." d "f", x)
}
# peers formats a figure of the three peers: gate / raw / rawhdrs.
function peers(row, unit, d) {
	return f(row, "gate-" unit, d) " / " f(row, "raw-" unit, d) " / " f(row, "rawhdrs-" unit, d)
}
function row(bench, input, cpu) {
	return "Benchmark" bench "/" input (cpu == 1 ? "" : "-" cpu)
}
END {
	printf "%d processes, each running each peer four times over %d messages; %s, %d cores; load average %s before, %s after.\n\n", rounds, n, gover, cores, load0, load1
	print "The server in a process of its own (BenchmarkGateApart):\n"
	print "| input | cores | gate/raw | gate/rawhdrs | CPU raw/gate, client | client and server | msgs/s, gate / raw / rawhdrs | client CPU µs a message | server CPU µs a message | client allocations a message | client bytes a message |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (in_ = 1; in_ <= 2; in_++) for (cpu = 1; cpu <= 2; cpu++) {
		input = in_ == 1 ? "headers" : "bare"
		r = row("GateApart", input, cpu)
		printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", input, cpu, f(r, "gate/raw", 2), f(r, "gate/rawhdrs", 2), f(r, "cpu-raw/gate", 2), f(r, "both-raw/gate", 2), peers(r, "msgs/s", 0), peers(r, "cpu-µs/msg", 1), peers(r, "srv-µs/msg", 1), peers(r, "allocs/msg", 1), peers(r, "B/msg", 0)
	}
	print "\nThe server in the benchmark'"'"'s process (BenchmarkGate):\n"
	print "| input | cores | gate/raw | gate/rawhdrs | CPU raw/gate | msgs/s, gate / raw / rawhdrs | CPU µs a message (server included) |"
	print "|---|---:|---:|---:|---:|---:|---:|"
	for (in_ = 1; in_ <= 2; in_++) for (cpu = 1; cpu <= 2; cpu++) {
		input = in_ == 1 ? "headers" : "bare"
		r = row("Gate", input, cpu)
		printf "| %s | %d | %s | %s | %s | %s | %s |\n", input, cpu, f(r, "gate/raw", 2), f(r, "gate/rawhdrs", 2), f(r, "cpu-raw/gate", 2), peers(r, "msgs/s", 0), peers(r, "cpu-µs/msg", 1)
	}
	print "\nPublishing one message at a time and waiting for it to be stored (BenchmarkPublish), msgs/s:\n"
	print "| cores | validate | novalidate |"
	print "|---:|---:|---:|"
	for (cpu = 1; cpu <= 2; cpu++)
		printf "| %d | %s | %s |\n", cpu, f(row("Publish", "validate", cpu), "msgs/s", 0), f(row("Publish", "novalidate", cpu), "msgs/s", 0)
}' "$out"
