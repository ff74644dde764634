package main

import (
	"fmt"
	"strconv"
	"strings"
)

// An identity names the members of a schema's root message that identify
// a message on a broker (decisions 14 and 15), as msg.Kind documents them:
// the generated SchemaKind and Identity methods carry them, so that no
// binding needs to know a message type.
type identity struct {
	ID, Time, Type *field // Type is nil for a schema without message_type
	// Tenant and SourceID are nil for a schema without source members;
	// SourceType is nil too when the schema does not declare it.
	Tenant, SourceType, SourceID *field
	Source                       string // the fixed source of a schema without source members
	Key                          *field
}

// identityOf finds the identity members of sf's root message, or says
// why the schema cannot be carried on a broker.
func identityOf(sf *schemaFile) (*identity, error) {
	byName := make(map[string]*field)
	for _, f := range sf.Root.Fields {
		byName[f.JSON] = f
	}
	first := func(names ...string) *field {
		for _, n := range names {
			if f := byName[n]; f != nil {
				return f
			}
		}
		return nil
	}
	// value checks that f is a required member held by value, of one of
	// the kinds.
	value := func(what string, f *field, kinds ...kind) error {
		ok := f.Required && !f.Nullable && f.Repr == reprValue
		found := false
		for _, k := range kinds {
			found = found || f.Kind == k
		}
		if !ok || !found {
			var names []string
			for _, k := range kinds {
				names = append(names, fieldKinds[k].What)
			}
			return fmt.Errorf("/%s: the %s must be a required, non-nullable %s", f.JSON, what, strings.Join(names, " or "))
		}
		return nil
	}
	id := &identity{}
	if id.ID = first("message_id", "id"); id.ID == nil {
		return nil, fmt.Errorf("no id member (message_id, or id): a message on a broker needs one for ce-id (decision 14)")
	}
	if err := value("id member", id.ID, kindUUID); err != nil {
		return nil, err
	}
	if id.Time = first("time", "occurred_at"); id.Time == nil {
		return nil, fmt.Errorf("no time member (time, or occurred_at): a message on a broker needs one for ce-time (decision 14)")
	}
	if err := value("time member", id.Time, kindDateTime); err != nil {
		return nil, err
	}
	if id.Type = byName["message_type"]; id.Type != nil && (id.Type.Kind != kindString || id.Type.Nullable || id.Type.Repr != reprValue) {
		return nil, fmt.Errorf("/message_type: must be a string, required or with a default, and not nullable")
	}
	id.Tenant, id.SourceID = byName["tenant_id"], byName["source_id"]
	switch {
	case id.Tenant != nil && id.SourceID != nil:
		for _, f := range []*field{id.Tenant, id.SourceID} {
			if err := value("source member", f, kindString, kindUUID); err != nil {
				return nil, err
			}
		}
		if id.SourceType = byName["source_type"]; id.SourceType != nil && id.SourceType.Kind != kindString {
			return nil, fmt.Errorf("/source_type: a source member must be a string")
		}
	case id.Tenant != nil || id.SourceID != nil:
		return nil, fmt.Errorf("tenant_id and source_id name a message's source together (ce-source): declare both or neither")
	default:
		id.Tenant, id.SourceID = nil, nil
		id.Source = "/" + sf.Package + "s"
	}
	// The entity's own id, or the id member (decision 15).
	id.Key = first(sf.Package+"_id", id.ID.JSON)
	if err := value("record key", id.Key, kindString, kindUUID); err != nil {
		return nil, err
	}
	return id, nil
}

// text returns the expression of f's value in a msg.Text, for a member
// held by value.
func (f *field) text(x string) string {
	if f.Kind == kindUUID {
		return "msg.UUIDText(" + x + ")"
	}
	return "msg.StringText(" + x + ")"
}

// kindVar names the variable that holds the msg.Kind of sf.
func (sf *schemaFile) kindVar() string { return "schemaKind" + sf.Suffix }

// kind writes the msg.Kind of the package's file and the methods that
// return it and a message's identity.
func (g *generator) kind(m *message) {
	sf, id := g.sf, g.sf.Identity
	version, schemaID, newExpr := "Version", "ID", "New()"
	if sf.Suffix != "" {
		version, schemaID = strconv.Quote(sf.Schema.Version), strconv.Quote(sf.Schema.ID)
		newExpr = "&v"
	}
	ptr := func(f *field) string {
		if f == nil {
			return `""`
		}
		return strconv.Quote("/" + f.JSON)
	}
	g.p("")
	g.p("// %s is the kind of %s messages.", sf.kindVar(), m.GoName)
	g.p("var %s = msg.Kind{", sf.kindVar())
	g.p("Name: Name,")
	g.p("Version: %s,", version)
	g.p("ID: %s,", schemaID)
	if sf.Schema.RegistryID != 0 {
		g.p("RegistryID: %d,", sf.Schema.RegistryID)
	}
	if sf.Suffix == "" {
		g.p("New: func() msg.Message { return New() },")
	} else {
		g.p("New: func() msg.Message {")
		g.p("v := %s", m.defaults())
		g.p("return %s", newExpr)
		g.p("},")
	}
	g.kindEntries(m)
	g.p("IDMember: %s,", ptr(id.ID))
	g.p("TimeMember: %s,", ptr(id.Time))
	if id.Type != nil {
		g.p("TypeMember: %s,", ptr(id.Type))
	}
	if id.Tenant != nil {
		g.p("SourceMembers: []string{%s, %s, %s},", ptr(id.Tenant), ptr(id.SourceType), ptr(id.SourceID))
	} else {
		g.p("Source: %q,", id.Source)
	}
	g.p("KeyMember: %s,", ptr(id.Key))
	g.p("}")
	g.judgeEntry(m)
	g.p("")
	g.comment(fmt.Sprintf("SchemaKind returns the kind of %s messages: their schema, %s version %s, and the members that identify a message on a broker.", m.GoName, sf.Schema.Name, sf.Schema.Version))
	g.p("func (*%s) SchemaKind() *msg.Kind { return &%s }", m.GoName, sf.kindVar())
	g.p("")
	var what []string
	what = append(what, "its "+id.ID.JSON, "its "+id.Time.JSON)
	if id.Tenant != nil {
		what = append(what, "its source members")
	}
	if id.Key != id.ID {
		what = append(what, "its record key "+id.Key.JSON)
	} else {
		what = append(what, "its record key, the "+id.Key.JSON+" too")
	}
	g.comment(fmt.Sprintf("Identity returns the values of the members that identify v on a broker, as its kind names them: %s. It allocates nothing.", strings.Join(what, ", ")))
	g.p("func (v *%s) Identity() msg.Identity {", m.GoName)
	if id.SourceType != nil {
		g.p("id := msg.Identity{")
	} else {
		g.p("return msg.Identity{")
	}
	g.p("Kind: &%s,", sf.kindVar())
	g.p("ID: v.%s,", id.ID.GoName)
	g.p("Time: v.%s,", id.Time.GoName)
	if id.Type != nil {
		g.p("Type: v.%s,", id.Type.GoName)
	}
	if id.Tenant != nil {
		g.p("Tenant: %s,", id.Tenant.text("v."+id.Tenant.GoName))
		g.p("SourceID: %s,", id.SourceID.text("v."+id.SourceID.GoName))
	}
	g.p("Key: %s,", id.Key.text("v."+id.Key.GoName))
	g.p("}")
	if st := id.SourceType; st != nil {
		x := "v." + st.GoName
		switch st.Repr {
		case reprValue:
			g.p("id.SourceType = %s", st.text(x))
		case reprNullable:
			g.p("if x, ok := %s.Get(); ok {", x)
			g.p("id.SourceType = %s", st.text("x"))
			g.p("}")
		case reprPointer:
			g.p("if %s != nil {", x)
			g.p("id.SourceType = %s", st.text("*"+x))
			g.p("}")
		}
		g.p("return id")
	}
	g.p("}")
}
