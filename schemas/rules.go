package schemas

import "github.com/fleetkit/catalogue/msg"

// An ExtraRule is a rule of the catalogue that JSON Schema cannot express,
// on one member of every version of one schema: the schema files cannot
// carry it without breaking their own defaults (decision 6), so it is
// written here, once, and read by the generator, which applies it in
// decoding and Validate, and by the compatibility checker, which judges
// versions with it.
type ExtraRule struct {
	Schema string   // the schema's name, such as "core.device"
	Member string   // the name of the top-level member it applies to, such as "imei"
	Rule   msg.Rule // the rule, whose name is the violation's: msg.RuleIMEI
}

// Pointer returns the JSON Pointer of the member in a message, such as
// "/imei".
func (r ExtraRule) Pointer() string { return msg.Pointer("", r.Member) }

// extraRules is the table of the catalogue's extra rules.
var extraRules = []ExtraRule{
	// Decision 6: core.device's imei is empty, meaning not set, or a
	// valid IMEI (package imei).
	{Schema: "core.device", Member: "imei", Rule: msg.RuleIMEI},
}

// ExtraRules returns the extra rules of the schema named name, in a new
// slice: none for most schemas.
func ExtraRules(name string) []ExtraRule {
	var rules []ExtraRule
	for _, r := range extraRules {
		if r.Schema == name {
			rules = append(rules, r)
		}
	}
	return rules
}
