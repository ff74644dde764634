package oracle

import (
	"fmt"
	"strings"
)

// A Corpus makes the messages a differential test holds a generated type
// to the oracle on: a base message the schema accepts, changed in one
// member, and in every pair of members, in every way Values lists.
type Corpus struct {
	// Base is the message the others are changes of, member by member:
	// each a name and its value as JSON text.
	Base [][2]string
	// Values lists, for each member, the values the corpus gives it, as
	// JSON text; "" stands for the member being absent.
	Values map[string][]string
	// Order is the order the members are written in; a member it leaves
	// out is never written.
	Order []string
}

// With returns the base message with each member in set given its value
// there ("" to leave it out), and the others as in Base.
func (c Corpus) With(set map[string]string) []byte {
	vals := make(map[string]string, len(c.Base)+len(set))
	for _, m := range c.Base {
		vals[m[0]] = m[1]
	}
	for k, v := range set {
		vals[k] = v
	}
	var parts []string
	for _, k := range c.Order {
		if v := vals[k]; v != "" {
			parts = append(parts, fmt.Sprintf("%q:%s", k, v))
		}
	}
	return []byte("{" + strings.Join(parts, ",") + "}")
}

// Messages returns the base message, then the base changed in each member
// and in each pair of members, in every way Values lists, in Order's
// order.
func (c Corpus) Messages() [][]byte {
	out := [][]byte{c.With(nil)}
	for i, a := range c.Order {
		for _, va := range c.Values[a] {
			out = append(out, c.With(map[string]string{a: va}))
			for _, b := range c.Order[i+1:] {
				for _, vb := range c.Values[b] {
					out = append(out, c.With(map[string]string{a: va, b: vb}))
				}
			}
		}
	}
	return out
}
