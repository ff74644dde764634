package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestTableComparesEachRowWithStdlib pins the table for a small run: medians
// of each unit, the baseline first, and Validate (which stdlib lacks)
// compared with stdlib's Decode of the same input.
func TestTableComparesEachRowWithStdlib(t *testing.T) {
	const run = `goos: linux
goarch: amd64
pkg: github.com/fleetkit/catalogue/bench
BenchmarkDecode/schema=event/input=realistic/impl=ogen-2   	  100	  1000 ns/op	  10.00 MB/s	  300 B/op	  8 allocs/op
BenchmarkDecode/schema=event/input=realistic/impl=stdlib-2 	  100	  2000 ns/op	  20.00 MB/s	  600 B/op	  20 allocs/op
BenchmarkDecode/schema=event/input=realistic/impl=stdlib-2 	  100	  4000 ns/op	  20.00 MB/s	  600 B/op	  20 allocs/op
BenchmarkDecode/schema=event/input=realistic/impl=stdlib-2 	  100	  3000 ns/op	  20.00 MB/s	  600 B/op	  20 allocs/op
BenchmarkValidate/schema=event/input=realistic/impl=ogen-2 	  100	    15.5 ns/op	  0 B/op	  0 allocs/op
BenchmarkMarshal/schema=event/input=realistic/impl=stdlib-2	  100	  1000 ns/op	  288 B/op	  2 allocs/op
BenchmarkMarshal/schema=event/input=realistic/impl=ogen-2  	  100	  1500 ns/op	  736 B/op	  6 allocs/op
BenchmarkUnrelated-2                                        	  100	  1500 ns/op
PASS
`
	const want = `| input | op | impl | ns/op | × stdlib | MB/s | × stdlib | B/op | × stdlib | allocs/op | × stdlib |
|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|
| event/realistic | Decode | stdlib | 3,000 | 1.00 | 20 | 1.00 | 600 | 1.00 | 20 | 1.00 |
| event/realistic | Decode | ogen | 1,000 | 0.33 | 10 | 0.50 | 300 | 0.50 | 8 | 0.40 |
| event/realistic | Validate | ogen | 15.5 | <0.01 | | | 0 | 0 | 0 | 0 |
| event/realistic | Marshal | stdlib | 1,000 | 1.00 | | | 288 | 1.00 | 2 | 1.00 |
| event/realistic | Marshal | ogen | 1,500 | 1.50 | | | 736 | 2.56 | 6 | 3.00 |
`
	path := filepath.Join(t.TempDir(), "new.txt")
	if err := os.WriteFile(path, []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	samples, order, err := read([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	write(&got, samples, order, "stdlib")
	if got.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", got.String(), want)
	}

	// Against ogen, whose Validate row has no stdlib counterpart.
	const wantOgen = `| input | op | impl | ns/op | × ogen | MB/s | × ogen | B/op | × ogen | allocs/op | × ogen |
|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|
| event/realistic | Decode | ogen | 1,000 | 1.00 | 10 | 1.00 | 300 | 1.00 | 8 | 1.00 |
| event/realistic | Decode | stdlib | 3,000 | 3.00 | 20 | 2.00 | 600 | 2.00 | 20 | 2.50 |
| event/realistic | Validate | ogen | 15.5 | 1.00 | | | 0 | 1.00 | 0 | 1.00 |
| event/realistic | Marshal | ogen | 1,500 | 1.00 | | | 736 | 1.00 | 6 | 1.00 |
| event/realistic | Marshal | stdlib | 1,000 | 0.67 | | | 288 | 0.39 | 2 | 0.33 |
`
	got.Reset()
	write(&got, samples, order, "ogen")
	if got.String() != wantOgen {
		t.Errorf("table against ogen:\n%s\nwant:\n%s", got.String(), wantOgen)
	}
}

// TestInstructionsColumn pins the instr/op column that an -instructions
// file (instructions.sh's output) adds, for the rows the run has.
func TestInstructionsColumn(t *testing.T) {
	const run = `BenchmarkScan/schema=event/input=realistic/impl=stdlib-2   	  100	  2000 ns/op	  20.00 MB/s	  0 B/op	  0 allocs/op
BenchmarkScan/schema=event/input=realistic/impl=jx-2   	  100	  1000 ns/op	  40.00 MB/s	  0 B/op	  0 allocs/op
`
	const instr = `Scan/schema=event/input=realistic/impl=stdlib 8000
Scan/schema=event/input=realistic/impl=jx 2000
Scan/schema=event/input=realistic/impl=absent 1
`
	const want = `| input | op | impl | ns/op | × stdlib | MB/s | × stdlib | instr/op | × stdlib | B/op | × stdlib | allocs/op | × stdlib |
|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
| event/realistic | Scan | stdlib | 2,000 | 1.00 | 20 | 1.00 | 8,000 | 1.00 | 0 | 1.00 | 0 | 1.00 |
| event/realistic | Scan | jx | 1,000 | 0.50 | 40 | 2.00 | 2,000 | 0.25 | 0 | 1.00 | 0 | 1.00 |
`
	dir := t.TempDir()
	runPath, instrPath := filepath.Join(dir, "new.txt"), filepath.Join(dir, "instr.txt")
	if err := os.WriteFile(runPath, []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(instrPath, []byte(instr), 0o644); err != nil {
		t.Fatal(err)
	}
	samples, order, err := read([]string{runPath})
	if err != nil {
		t.Fatal(err)
	}
	if err := readInstructions(instrPath, samples); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	write(&got, samples, order, "stdlib")
	if got.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", got.String(), want)
	}
}
