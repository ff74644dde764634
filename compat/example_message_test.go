package compat

import (
	"os"
	"strings"
	"testing"

	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/schemas"
)

// TestExampleIsAcceptedByTheOracle holds Example to the independent
// validator over every version of the published catalogue and of both
// fixtures, and checks that it shows every member a version declares.
func TestExampleIsAcceptedByTheOracle(t *testing.T) {
	for _, dir := range []string{"", "../testdata/fixture", "../testdata/fixture-breaking"} {
		c := schemas.Published()
		if dir != "" {
			var err error
			if c, err = schemas.Load(os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
		}
		o, err := oracle.New(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.All() {
			e, err := Example(s)
			if err != nil {
				t.Fatalf("%s %s: %v", s.Name, s.Version, err)
			}
			if ok, why := o.Verdict(s.Name, s.Version, e); !ok {
				t.Errorf("%s %s: the oracle rejects the example %s: %v", s.Name, s.Version, e, why)
			}
			root, err := parseSchema(s.JSON(), s.Name, schemas.LookupID)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range root.names() {
				if !strings.Contains(string(e), `"`+name+`":`) {
					t.Errorf("%s %s: the example %s lacks the member %q", s.Name, s.Version, e, name)
				}
			}
		}
	}
}

func TestExampleRefusesWhatItCannotDecide(t *testing.T) {
	s, err := schemas.Parse([]byte(`{"$id":"` + schemas.ID("demo.x", "1.0") + `","title":"demo.x","type":"object","required":["a"],"properties":{"a":{"type":"string","pattern":"^a+$","not":{}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if e, err := Example(s); err == nil {
		t.Fatalf("Example = %s, want an error for a required member with a keyword the checker cannot decide", e)
	}
}
