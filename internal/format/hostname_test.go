package format

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostnameAsTheSuiteDefinesIt holds CheckHostname to every string
// test of the suite's optional/format/hostname.json, in both drafts: its
// ASCII rules and its IDNA2008 rules on A-labels.
func TestHostnameAsTheSuiteDefinesIt(t *testing.T) {
	n := 0
	for _, draft := range []string{"draft7", "draft2020-12"} {
		data, err := os.ReadFile("../../testdata/json-schema-test-suite/" + draft + "/optional/format/hostname.json")
		require.NoError(t, err)
		var groups []struct {
			Tests []struct {
				Description string
				Data        any
				Valid       bool
			}
		}
		require.NoError(t, json.Unmarshal(data, &groups))
		for _, g := range groups {
			for _, tc := range g.Tests {
				s, ok := tc.Data.(string)
				if !ok {
					continue // format asserts nothing of other types
				}
				n++
				why := CheckHostname(s)
				assert.Equal(t, tc.Valid, why == "", "%s: %s: %q: %s", draft, tc.Description, s, why)
			}
		}
	}
	assert.Greater(t, n, 100)
}

// TestHostnameAgreesWithOracle compares CheckHostname with the oracle on
// random names built of the characters that matter (letters, digits,
// hyphens, dots, an underscore, a non-ASCII letter), outside the two
// places the oracle departs from the suite: it trims a trailing dot, and
// it checks no A-label ("xn--") beyond its ASCII.
func TestHostnameAgreesWithOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 19))
	const alphabet = "aZ9-._é"
	runes := []rune(alphabet)
	checked := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteRune(runes[r.IntN(len(runes))])
		}
		if r.IntN(8) == 0 {
			b.WriteString("." + strings.Repeat("a", 60+r.IntN(6)))
		}
		s := b.String()
		if strings.HasSuffix(s, ".") || strings.Contains(strings.ToLower(s), "xn--") {
			continue
		}
		checked++
		want := oracleSchema(t, "hostname").Validate(s) == nil
		assert.Equal(t, want, CheckHostname(s) == "", "%q: %s", s, CheckHostname(s))
	}
	assert.Greater(t, checked, 10000)
	// The two departures, each a verdict the suite gives.
	assert.True(t, oracleSchema(t, "hostname").Validate("example.") == nil)
	assert.NotEmpty(t, CheckHostname("example."))
	assert.True(t, oracleSchema(t, "hostname").Validate("xn--X") == nil)
	assert.NotEmpty(t, CheckHostname("xn--X"))
}
