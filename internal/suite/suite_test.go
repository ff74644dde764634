package suite_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetkit/catalogue/internal/suite"
	"github.com/fleetkit/catalogue/msg"
)

// wrap returns the message an instance is decoded as: the wrapper's id
// and time, and the instance in its member (see gen/suite.go).
func wrap(t suite.Test) []byte {
	return []byte(`{"id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","time":"2024-05-01T12:00:00Z",` + strconv.Quote(t.Member) + ":" + t.Data + "}")
}

// TestSuite decodes every instance of every group the generator accepts
// and compares the verdict with the suite's. A valid instance must also
// pass Validate, and encode to a message that decodes again; an invalid
// one must be refused with an *msg.Error, never another error.
func TestSuite(t *testing.T) {
	for _, g := range suite.Groups {
		if g.New == nil {
			continue
		}
		t.Run(fmt.Sprintf("%s/%s/%d", g.Draft, g.File, g.Index), func(t *testing.T) {
			for _, test := range g.Tests {
				m := g.New()
				err := m.UnmarshalJSON(wrap(test))
				if got := err == nil; got != test.Valid {
					t.Errorf("%s: %s: %s: valid %t, want %t (%v)", g.Description, test.Description, test.Data, got, test.Valid, err)
					continue
				}
				if err != nil {
					var e *msg.Error
					if !errors.As(err, &e) {
						t.Errorf("%s: %s: error %T, want *msg.Error: %v", g.Description, test.Description, err, err)
					}
					continue
				}
				if err := m.Validate(); err != nil {
					t.Errorf("%s: %s: decoded, but Validate says %v", g.Description, test.Description, err)
				}
				out, err := m.MarshalJSON()
				if err != nil {
					t.Errorf("%s: %s: decoded, but does not encode: %v", g.Description, test.Description, err)
					continue
				}
				if err := g.New().UnmarshalJSON(out); err != nil {
					t.Errorf("%s: %s: encoded as %s, which does not decode: %v", g.Description, test.Description, out, err)
				}
			}
		})
	}
}

// TestEveryGroupIsPassedOrRefused pins that the table holds every group
// of the suite's files, each with its instances and either a type or a
// reason, so that no group is skipped in silence.
func TestEveryGroupIsPassedOrRefused(t *testing.T) {
	byGroup := make(map[string]suite.Group)
	for _, g := range suite.Groups {
		if (g.New == nil) == (g.Refused == "") {
			t.Errorf("%s/%s/%d: want a type or a reason, not both or neither", g.Draft, g.File, g.Index)
		}
		byGroup[fmt.Sprintf("%s/%s/%d", g.Draft, g.File, g.Index)] = g
	}
	n := 0
	for _, draft := range []string{"draft7", "draft2020-12"} {
		dir := filepath.Join("../../testdata/json-schema-test-suite", draft)
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		formats, _ := filepath.Glob(filepath.Join(dir, "optional/format/*.json"))
		for _, f := range append(files, formats...) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var groups []struct {
				Tests []json.RawMessage `json:"tests"`
			}
			if err := json.Unmarshal(data, &groups); err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, f)
			for i, grp := range groups {
				n++
				key := fmt.Sprintf("%s/%s/%d", draft, filepath.ToSlash(rel), i)
				if got, ok := byGroup[key]; !ok {
					t.Errorf("%s: not in the table: run go generate ./...", key)
				} else if len(got.Tests) != len(grp.Tests) {
					t.Errorf("%s: %d tests in the table, %d in the suite: run go generate ./...", key, len(got.Tests), len(grp.Tests))
				}
			}
		}
	}
	if n != len(suite.Groups) {
		t.Errorf("the suite has %d groups, the table %d: run go generate ./...", n, len(suite.Groups))
	}
}

// TestREADMECounts pins the counts the README gives to the table.
func TestREADMECounts(t *testing.T) {
	passed := 0
	for _, g := range suite.Groups {
		if g.New != nil {
			passed++
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`generates (\d+) of the suite's (\d+) groups`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md does not say how many of the suite's groups the generator generates")
	}
	if want := fmt.Sprintf("generates %d of the suite's %d groups", passed, len(suite.Groups)); !strings.Contains(string(readme), want) {
		t.Errorf("README.md says %q, want %q", m[0], want)
	}
}
