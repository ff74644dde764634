package catalogue

import "testing"

// TestLatestKindIsDispatchsKind pins that Check and DecodeBorrowed, which
// choose a kind by the table, judge by the schema Decode's dispatch
// (newLatest) makes a message of.
func TestLatestKindIsDispatchsKind(t *testing.T) {
	for _, name := range append(Types(), "core.driver", "") {
		m, k := newLatest(name), latestKind([]byte(name))
		switch {
		case m == nil && k != nil:
			t.Errorf("%q: no dispatch, but kind %s %s", name, k.Name, k.Version)
		case m != nil && m.SchemaKind() != k:
			t.Errorf("%q: dispatch makes a message of kind %s %s, the table says %v", name, m.SchemaName(), m.SchemaVersion(), k)
		}
	}
}
