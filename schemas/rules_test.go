package schemas_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// TestExtraRulesAreDecisionSix pins the table of the catalogue's extra
// rules: the IMEI rule on core.device's imei, and nothing else.
func TestExtraRulesAreDecisionSix(t *testing.T) {
	assert.Equal(t, []schemas.ExtraRule{{Schema: "core.device", Member: "imei", Rule: msg.RuleIMEI}}, schemas.ExtraRules("core.device"))
	assert.Equal(t, "/imei", schemas.ExtraRules("core.device")[0].Pointer())
	for _, name := range []string{"core.vehicle", "core.association", "example.event", "no.such"} {
		assert.Empty(t, schemas.ExtraRules(name), name)
	}
}

// TestExtraRulesNameStringMembers pins that every extra rule names a
// string member that every version of its schema declares, which is what
// the generator needs to apply it.
func TestExtraRulesNameStringMembers(t *testing.T) {
	for _, s := range schemas.All() {
		for _, r := range schemas.ExtraRules(s.Name) {
			var file struct {
				Properties map[string]struct {
					Type any `json:"type"`
				} `json:"properties"`
			}
			require.NoError(t, json.Unmarshal(s.JSON(), &file))
			p, ok := file.Properties[r.Member]
			require.True(t, ok, "%s %s declares %s", s.Name, s.Version, r.Member)
			assert.Equal(t, "string", p.Type, "%s %s: %s", s.Name, s.Version, r.Member)
		}
	}
}

func TestExtraRulesAreTheCallersToKeep(t *testing.T) {
	rules := schemas.ExtraRules("core.device")
	rules[0].Member = "changed"
	assert.Equal(t, "imei", schemas.ExtraRules("core.device")[0].Member)
}
