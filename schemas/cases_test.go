package schemas_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/internal/casetable"
	"github.com/fleetkit/catalogue/internal/oracle"
	"github.com/fleetkit/catalogue/schemas"
)

func TestCaseFilesCoverTheCatalogue(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "cases"))
	require.NoError(t, err)
	var files, want []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	for _, s := range schemas.All() {
		want = append(want, s.Name+".ndjson")
	}
	assert.Equal(t, want, files, "one case file per schema, and nothing else")
}

func TestCasesAgreeWithTheOracle(t *testing.T) {
	for _, s := range schemas.All() {
		t.Run(s.Name, func(t *testing.T) {
			for _, c := range casetable.Read(t, filepath.Join("testdata", "cases"), s.Name) {
				ok, why := oracle.Verdict(s.Name, c.Message)
				if ok != c.Valid {
					t.Errorf("line %d: %s\nwant valid=%t, oracle says %t\nwhy: %s\nmessage: %s",
						c.Line, c.Note, c.Valid, ok, strings.Join(why, "; "), c.Message)
				}
			}
		})
	}
}

// TestCasesKeepTheirCoverage fails if the table loses a class of cases:
// each file must hold valid and invalid cases, unique notes, and every
// top-level property of its schema in at least one valid and one invalid
// case, and every required property absent from at least one case.
func TestCasesKeepTheirCoverage(t *testing.T) {
	for _, s := range schemas.All() {
		t.Run(s.Name, func(t *testing.T) {
			var sch struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			require.NoError(t, json.Unmarshal(s.JSON(), &sch))
			cases := casetable.Read(t, filepath.Join("testdata", "cases"), s.Name)

			notes := map[string]int{}
			seen := map[bool]map[string]bool{true: {}, false: {}}
			absentInvalid := map[string]bool{}
			var valid, invalid int
			for _, c := range cases {
				if prev, dup := notes[c.Note]; dup {
					t.Errorf("line %d repeats the note of line %d: %s", c.Line, prev, c.Note)
				}
				notes[c.Note] = c.Line
				if c.Valid {
					valid++
				} else {
					invalid++
				}
				var msg map[string]json.RawMessage
				if json.Unmarshal(c.Message, &msg) != nil || msg == nil {
					continue // a document that is not an object
				}
				for name := range msg {
					seen[c.Valid][name] = true
				}
				if !c.Valid {
					for _, r := range sch.Required {
						if _, ok := msg[r]; !ok && len(msg) == len(sch.Required)-1 {
							absentInvalid[r] = true
						}
					}
				}
			}
			assert.Positive(t, valid, "valid cases")
			assert.Positive(t, invalid, "invalid cases")
			for _, p := range slices.Sorted(mapKeys(sch.Properties)) {
				assert.True(t, seen[true][p], "no valid case has %s", p)
				assert.True(t, seen[false][p], "no invalid case has %s", p)
			}
			for _, r := range sch.Required {
				assert.True(t, absentInvalid[r], "no invalid case lacks only %s", r)
			}
		})
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
