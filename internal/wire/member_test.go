package wire

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// readMembers reads the object in data member by member, with member,
// and returns what it found of each, where the decoder was after it, and
// the error.
func readMembers(data []byte, ms *Members, member func(d *Decoder, seen *Seen) (int, []byte)) string {
	var d Decoder
	d.ResetMode(data, Judge)
	var out strings.Builder
	if d.Object("", "") {
		var seen Seen
		for i := 0; d.More("", "", '}', i); i++ {
			j, key := member(&d, &seen)
			fmt.Fprintf(&out, "%d %q at %d, seen %x; ", j, key, d.Pos, seen.Bits)
			if j != Skipped {
				d.Skip("", "")
			}
		}
	}
	d.End()
	fmt.Fprintf(&out, "error %v", d.Err())
	return out.String()
}

// TestMemberComparesWordsAsBytes holds Member, which compares the names it
// expects three words at a time, to member, which compares the one it
// expects as a string and looks any other up, as Member did before,
// over names of every length
// from 1 to 40 (past the three words it compares), each written right,
// with a byte changed at every place, escaped, repeated, out of order,
// absent, and with the input ending at every point after it.
func TestMemberComparesWordsAsBytes(t *testing.T) {
	var names []string
	for n := 1; n <= 40; n++ {
		names = append(names, strings.Repeat("abcdefghij", 4)[:n-1]+string(rune('A'+n%26)))
	}
	ms := NewMembers(names...)
	words := func(d *Decoder, seen *Seen) (int, []byte) { return d.Member("", ms, seen) }
	bytes := func(d *Decoder, seen *Seen) (int, []byte) { return d.member("", ms, seen) }
	check := func(data string) {
		t.Helper()
		got, want := readMembers([]byte(data), ms, words), readMembers([]byte(data), ms, bytes)
		if got != want {
			t.Fatalf("%q:\nwords %s\nbytes %s", data, got, want)
		}
	}
	object := func(names []string) string {
		var b strings.Builder
		b.WriteByte('{')
		for i, name := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%d", name, i)
		}
		b.WriteByte('}')
		return b.String()
	}
	whole := object(names)
	for end := range len(whole) + 1 {
		check(whole[:end])
	}
	check(whole + strings.Repeat(" ", 30))
	for i, name := range names {
		// The member i written otherwise, at its place in order.
		for k := range len(name) + 3 {
			for _, c := range []byte{'a', 'A', 'z', '"', ':', ' ', '\\', 0x00, 0x80, 0xff} {
				q := []byte(strconv.Quote(name) + ":")
				q[k] = c
				data := object(names[:i])
				if i > 0 {
					data = data[:len(data)-1] + ","
				}
				data += string(q) + "0," + object(names[i+1:])[1:]
				check(data)
				check(data[:min(len(data), len(data)-len(object(names[i+1:]))+20)])
			}
		}
		escaped := strings.Replace(strconv.Quote(name), name[:1], `\u00`+strconv.FormatInt(int64(name[0]), 16), 1)
		check(strings.Replace(whole, strconv.Quote(name), escaped, 1))
		check(object(append(names[:i+1:i+1], names[i:]...)))
	}
	r := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		order := append([]string(nil), names...)
		if r.IntN(2) == 0 {
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		// Some absent, in runs as long as Member looks ahead and longer.
		for k := r.IntN(4); k > 0 && len(order) > 0; k-- {
			i := r.IntN(len(order))
			order = append(order[:i], order[min(i+1+r.IntN(lookAhead+2), len(order)):]...)
		}
		order = order[:r.IntN(len(order))]
		if len(order) > 0 && r.IntN(3) == 0 {
			order = append(order, order[r.IntN(len(order))])
		}
		if r.IntN(4) == 0 {
			order = append(order, "other")
		}
		check(object(order))
	}
}
