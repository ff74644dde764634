package pages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fleetkit/catalogue/internal/jsonobject"
	"github.com/fleetkit/catalogue/msg"
)

// A member is one row of a version page's table: a member the schema
// declares, at any depth, nested members following the member that holds
// them.
type member struct {
	Pointer     string // JSON Pointer, as violations name it: "/actor/id"; "*" stands for any item of an array
	Depth       int    // 0 for the root's members
	Type        string // "string", "array of string", "object", "any", ...
	Format      string
	Nullable    bool
	Required    bool
	Default     string // the default as JSON text, "" when there is none
	Bounds      []string
	Enum        []string // the allowed values as JSON text
	Rules       []string // the catalogue's rules beyond the schema
	Description string

	// Violations are a verdict's violations at this member or inside it,
	// set on the copy of the table a verdict is shown in.
	Violations []*msg.Violation
}

// A keyword is one member of a schema object, in the order written.
type keyword = jsonobject.Member

// object reads a JSON object into its members in the order written, so
// that the table lists members as the schema does. It reports false for
// anything but an object.
func object(raw json.RawMessage) ([]keyword, bool) {
	kws, err := jsonobject.Members(raw)
	return kws, err == nil
}

func lookup(kws []keyword, name string) (json.RawMessage, bool) {
	for _, k := range kws {
		if k.Name == name {
			return k.Value, true
		}
	}
	return nil, false
}

// shown are the keywords a row has a column for, or that say nothing
// about the values a member takes; every other keyword of a member is
// listed among its bounds as it is written, so that nothing the schema
// says is left off the page.
var shown = map[string]bool{
	"type": true, "format": true, "default": true, "enum": true,
	"description": true, "title": true, "$comment": true, "examples": true,
	"minimum": true, "maximum": true, "minLength": true,
	"properties": true, "required": true, "items": true,
}

// members returns the rows of a schema's table: its members, in the order
// the schema lists them, then those it requires without declaring them,
// each followed by its own members at any depth.
func members(schema string, data []byte) ([]*member, error) {
	root, ok := object(data)
	if !ok {
		return nil, errors.New("the schema is not a JSON object")
	}
	var rows []*member
	if err := appendMembers(&rows, schema, root, "", 0); err != nil {
		return nil, err
	}
	return rows, nil
}

func appendMembers(rows *[]*member, schema string, obj []keyword, prefix string, depth int) error {
	var required []string
	if raw, ok := lookup(obj, "required"); ok {
		if err := json.Unmarshal(raw, &required); err != nil {
			return fmt.Errorf("%s/required: %v", prefix, err)
		}
	}
	var props []keyword
	if raw, ok := lookup(obj, "properties"); ok {
		if props, ok = object(raw); !ok {
			return fmt.Errorf("%s/properties: not an object", prefix)
		}
	}
	for _, name := range required {
		if _, declared := lookup(props, name); !declared {
			props = append(props, keyword{Name: name, Value: json.RawMessage(`{}`)})
		}
	}
	for _, p := range props {
		ptr := msg.Pointer(prefix, p.Name) // as a violation names the member
		kws, ok := object(p.Value)
		if !ok {
			// A boolean schema: true takes any value, false none.
			kws = nil
		}
		m := describe(schema, ptr, kws)
		m.Depth = depth
		m.Required = slices.Contains(required, p.Name)
		*rows = append(*rows, m)
		if _, ok := lookup(kws, "properties"); ok {
			if err := appendMembers(rows, schema, kws, ptr, depth+1); err != nil {
				return err
			}
		}
		if raw, ok := lookup(kws, "items"); ok {
			if items, ok := object(raw); ok {
				if _, ok := lookup(items, "properties"); ok {
					if err := appendMembers(rows, schema, items, ptr+"/*", depth+1); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// describe returns the row of the member at ptr whose schema has the
// keywords kws.
func describe(schema, ptr string, kws []keyword) *member {
	m := &member{Pointer: ptr}
	types := typesOf(kws)
	for i, t := range types {
		if t == "null" {
			m.Nullable = true
			types = slices.Delete(types, i, i+1)
			break
		}
	}
	if raw, ok := lookup(kws, "enum"); ok {
		var values []json.RawMessage
		if json.Unmarshal(raw, &values) == nil {
			for _, v := range values {
				text := compact(v)
				if text == "null" {
					m.Nullable = true
				}
				m.Enum = append(m.Enum, text)
			}
		}
	}
	for i, t := range types {
		if t == "array" {
			if raw, ok := lookup(kws, "items"); ok {
				if items, ok := object(raw); ok {
					if it := typesOf(items); len(it) > 0 {
						types[i] = "array of " + strings.Join(it, " or ")
					}
				}
			}
		}
	}
	m.Type = strings.Join(types, " or ")
	if m.Type == "" {
		m.Type = "any"
	}
	if raw, ok := lookup(kws, "format"); ok {
		json.Unmarshal(raw, &m.Format)
	}
	if raw, ok := lookup(kws, "default"); ok {
		m.Default = compact(raw)
	}
	if raw, ok := lookup(kws, "description"); ok {
		json.Unmarshal(raw, &m.Description)
	}
	for _, k := range kws {
		switch {
		case k.Name == "minimum" || k.Name == "maximum" || k.Name == "minLength":
			m.Bounds = append(m.Bounds, k.Name+" "+compact(k.Value))
		case !shown[k.Name]:
			m.Bounds = append(m.Bounds, k.Name+": "+compact(k.Value))
		}
	}
	m.Rules = extraRules(schema, ptr)
	return m
}

// typesOf returns the JSON types a schema names with "type", in its order.
func typesOf(kws []keyword) []string {
	raw, ok := lookup(kws, "type")
	if !ok {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	json.Unmarshal(raw, &many)
	return many
}

// compact returns JSON text without the white space between tokens.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// extraRules returns what the catalogue asks of the member at ptr of the
// named schema beyond its JSON Schema, in words. The table is gen's (the
// rules it generates checks for, decision 6); it is read here, in this one
// function, so that it has one place to come from.
func extraRules(schema, ptr string) []string {
	rules := map[string]map[string]string{
		"core.device": {"/imei": "imei"},
	}
	switch rules[schema][ptr] {
	case "imei":
		return []string{`IMEI: "" (not set) or 15 digits whose last is the Luhn check digit of the first 14 (rule imei, decision 6)`}
	}
	return nil
}
