// Command ratio reads go test -bench output and prints, as a Markdown table,
// each implementation's median ns/op, B/op and allocs/op for each input,
// with its ratio to the baseline, impl=stdlib unless -base names another:
//
//	./run.sh 10 new.txt                    # runs it on new.txt
//	go run ./cmd/ratio -base ogen new.txt  # each row against ogen's
//	go run ./cmd/ratio -instructions instr.txt new.txt  # with instructions.sh output
//
// Benchmark names are Op/schema=S/input=I/impl=M. A row is compared with
// the baseline's row of the same op and input; an op that the baseline
// lacks (stdlib's Validate) is compared with its Decode of that input, the
// whole cost of a plain decode. Medians are what benchstat reports too; benchstat, not this
// command, says whether a difference is significant.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// baseOp is the op compared with when the baseline lacks a row's own.
const baseOp = "Decode"

// units are the measurements tabulated, in their column order:
// instr/op only when an -instructions file gives them.
var units = []string{"ns/op", "MB/s", "instr/op", "B/op", "allocs/op"}

// key names one row: an op on one input by one impl.
type key struct {
	op, schema, input, impl string
}

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: ratio [-base impl] [file ...]\n\nWith no file, or -, it reads standard input.\n")
		flag.PrintDefaults()
	}
	baseline := flag.String("base", "stdlib", "the impl every row is compared with")
	instructions := flag.String("instructions", "", "a file of instructions.sh output, for an instr/op column")
	flag.Parse()
	samples, order, err := read(flag.Args())
	if err == nil && *instructions != "" {
		err = readInstructions(*instructions, samples)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ratio:", err)
		os.Exit(1)
	}
	if len(order) == 0 {
		fmt.Fprintln(os.Stderr, "ratio: no benchmark results named Op/schema=S/input=I/impl=M")
		os.Exit(1)
	}
	write(os.Stdout, samples, order, *baseline)
}

// read returns every row's measurements, by unit, and the rows in the order
// they first appear.
func read(paths []string) (map[key]map[string][]float64, []key, error) {
	files := benchfmt.Files{Paths: paths, AllowStdin: true}
	samples := map[key]map[string][]float64{}
	var order []key
	for files.Scan() {
		res, ok := files.Result().(*benchfmt.Result)
		if !ok {
			continue // a syntax error in a line that is no result, or unit metadata
		}
		k, ok := parseName(res.Name)
		if !ok {
			continue
		}
		if samples[k] == nil {
			samples[k] = map[string][]float64{}
			order = append(order, k)
		}
		for _, v := range res.Values {
			unit, value := v.Unit, v.Value
			if v.OrigUnit != "" {
				unit, value = v.OrigUnit, v.OrigValue
			}
			samples[k][unit] = append(samples[k][unit], value)
		}
	}
	return samples, order, files.Err()
}

// readInstructions adds to samples the instr/op that instructions.sh
// wrote to path, a line "Op/schema=S/input=I/impl=M count" a benchmark,
// for the rows the benchmark output has.
func readInstructions(path string, samples map[key]map[string][]float64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		n, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return fmt.Errorf("%s: %q: %v", path, line, err)
		}
		k, ok := parseName(benchfmt.Name(f[0]))
		if m := samples[k]; ok && m != nil {
			m["instr/op"] = append(m["instr/op"], n)
		}
	}
	return nil
}

// parseName splits a benchmark name into its row's key.
func parseName(name benchfmt.Name) (key, bool) {
	base, parts := name.Parts()
	k := key{op: string(base)}
	for _, p := range parts {
		kv, ok := strings.CutPrefix(string(p), "/")
		if !ok {
			continue // -GOMAXPROCS
		}
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "schema":
			k.schema = value
		case "input":
			k.input = value
		case "impl":
			k.impl = value
		}
	}
	return k, k.schema != "" && k.input != "" && k.impl != ""
}

// write prints the table: inputs in their order of appearance, then ops,
// then impls, the baseline first.
func write(w io.Writer, samples map[key]map[string][]float64, order []key, baseline string) {
	rows := slices.Clone(order)
	first := func(f func(key) string) map[string]int {
		pos := map[string]int{}
		for _, k := range order {
			if _, ok := pos[f(k)]; !ok {
				pos[f(k)] = len(pos)
			}
		}
		return pos
	}
	inputPos := first(func(k key) string { return k.schema + "/" + k.input })
	opPos := first(func(k key) string { return k.op })
	implPos := first(func(k key) string { return k.impl })
	slices.SortStableFunc(rows, func(a, b key) int {
		return cmp.Or(
			cmp.Compare(inputPos[a.schema+"/"+a.input], inputPos[b.schema+"/"+b.input]),
			cmp.Compare(opPos[a.op], opPos[b.op]),
			cmp.Compare(rank(a.impl, baseline, implPos), rank(b.impl, baseline, implPos)),
		)
	})

	var cols []string // the units some row has
	for _, unit := range units {
		for _, k := range rows {
			if len(samples[k][unit]) > 0 {
				cols = append(cols, unit)
				break
			}
		}
	}
	fmt.Fprint(w, "| input | op | impl |")
	for _, unit := range cols {
		fmt.Fprintf(w, " %s | × %s |", unit, baseline)
	}
	fmt.Fprint(w, "\n|---|---|---|")
	fmt.Fprintln(w, strings.Repeat("--:|--:|", len(cols)))
	for _, k := range rows {
		base, ok := samples[key{k.op, k.schema, k.input, baseline}]
		if !ok {
			base = samples[key{baseOp, k.schema, k.input, baseline}]
		}
		fmt.Fprintf(w, "| %s/%s | %s | %s |", k.schema, k.input, k.op, k.impl)
		for _, unit := range cols {
			v, ok := median(samples[k][unit])
			if !ok {
				fmt.Fprint(w, " | |")
				continue
			}
			fmt.Fprintf(w, " %s | %s |", number(v), ratio(v, base[unit]))
		}
		fmt.Fprintln(w)
	}
}

// rank orders the baseline first, then impls as they first appear.
func rank(impl, baseline string, pos map[string]int) int {
	if impl == baseline {
		return -1
	}
	return pos[impl]
}

func median(xs []float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2, true
	}
	return s[len(s)/2], true
}

// ratio formats v over the baseline's median, or nothing without one.
func ratio(v float64, base []float64) string {
	b, ok := median(base)
	switch {
	case !ok:
		return ""
	case b == 0 && v == 0:
		return "1.00"
	case b == 0:
		return "∞"
	case v == 0:
		return "0"
	}
	r := v / b
	if r < 0.01 {
		return "<0.01"
	}
	if r >= 100 {
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'f', 2, 64)
}

// number formats a median with thousands separators; below 100, with one
// decimal, as ns/op can be.
func number(v float64) string {
	if v < 100 && v != float64(int64(v)) {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
