package suite_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/fleetkit/catalogue/internal/suite"
)

// TestSuiteJudgedAlike holds the four ways of reading a message (with a
// copy, borrowing, keeping nothing, keeping its identity) to the same verdict on every
// instance of the suite, whose schemas use every keyword the generator
// supports: the same error, violation for violation, and the same
// message from decoding with a copy as from decoding that borrows.
func TestSuiteJudgedAlike(t *testing.T) {
	for _, g := range suite.Groups {
		if g.New == nil {
			continue
		}
		t.Run(fmt.Sprintf("%s/%s/%d", g.Draft, g.File, g.Index), func(t *testing.T) {
			k := g.New().SchemaKind()
			for _, test := range g.Tests {
				data := wrap(test)
				m := g.New()
				want := m.UnmarshalJSON(data)
				borrowed, err := k.DecodeBorrowed(data)
				if !reflect.DeepEqual(err, want) {
					t.Errorf("%s: %s: DecodeBorrowed says %v, UnmarshalJSON %v", g.Description, test.Description, err, want)
				}
				if !reflect.DeepEqual(borrowed, m) {
					t.Errorf("%s: %s: the borrowed message differs: %#v, want %#v", g.Description, test.Description, borrowed, m)
				}
				if err := k.Check(data); !reflect.DeepEqual(err, want) {
					t.Errorf("%s: %s: Check says %v, UnmarshalJSON %v", g.Description, test.Description, err, want)
				}
				if id, err := k.JudgeIdentity(data); !reflect.DeepEqual(err, want) || !reflect.DeepEqual(id, m.Identity()) {
					t.Errorf("%s: %s: JudgeIdentity says %v, %v; UnmarshalJSON %v, %v", g.Description, test.Description, id, err, m.Identity(), want)
				}
			}
		})
	}
}
