package compat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/schemas"
)

// Mode is a set of directions of compatibility (decision 13).
type Mode int

const (
	// Backward: every message the old version accepts, the new accepts, so
	// consumers may upgrade first.
	Backward Mode = 1 << iota
	// Forward: every message the new version accepts, the old accepts, so
	// producers may upgrade first.
	Forward
	// Full is both, and more: a member both versions declare decodes, when
	// absent, to the same value under both. It is the rule for minor
	// versions.
	Full = Backward | Forward
)

// String returns "backward", "forward", "full", or "" for no direction.
func (m Mode) String() string {
	switch m {
	case Backward:
		return "backward"
	case Forward:
		return "forward"
	case Full:
		return "full"
	}
	return ""
}

// ParseMode returns the Mode that String names.
func ParseMode(s string) (Mode, error) {
	for _, m := range []Mode{Backward, Forward, Full} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("compat: mode %q is not full, backward or forward", s)
}

// Options say what Compare checks. The zero Options is the rule for minor
// versions: Full, judged on declared members.
type Options struct {
	// Mode is the directions to check; zero means Full.
	Mode Mode
	// Strict drops decision 13's declared-members assumption: an optional
	// member that one version declares and the other does not, which the
	// assumption lets pass with a warning ("open-content"), breaks.
	Strict bool
}

func (o Options) mode() Mode {
	if o.Mode&Full == 0 {
		return Full
	}
	return o.Mode & Full
}

// A Finding is one difference between two versions of a schema.
type Finding struct {
	// Code names the kind of difference; codes are stable (see the
	// package documentation for the list).
	Code string `json:"code"`
	// Breaks is the direction the difference breaks: Backward (the old
	// version accepts the witness and the new does not), Forward (the
	// reverse) or, for "default-changed" and for the codes of what the
	// checker cannot decide, Full. It is 0 for a warning.
	Breaks Mode `json:"-"`
	// Warning is set for a difference that is compatible only under
	// decision 13's declared-members assumption ("open-content", unless
	// Options.Strict).
	Warning bool `json:"warning,omitempty"`
	// Direction is the direction the witness shows, warnings included:
	// Backward for a message the old version accepts and the new rejects,
	// Forward for the reverse, Full for "default-changed" and for what the
	// checker cannot decide.
	Direction Mode `json:"-"`
	// SchemaPointer is the JSON Pointer of the keyword's schema, in the new
	// version if it has it, else in the old.
	SchemaPointer string `json:"schema_pointer"`
	// MemberPointer is the JSON Pointer of the message member concerned
	// ("" for the message itself), as found in Witness.
	MemberPointer string `json:"member_pointer"`
	// Message says, in a sentence a schema author can act on, what changed.
	Message string `json:"message"`
	// Witness is a message the version that Breaks names as accepting
	// accepts and the other rejects: for Backward, accepted by the old
	// version and rejected by the new; for a warning, the same in the
	// direction it would break. For "default-changed" it is a message both
	// accept without the member, which decodes differently under each. It
	// is nil for what the checker cannot decide, and where the schema
	// gives no way to build one (the message says so).
	Witness json.RawMessage `json:"witness,omitempty"`

	key  string // identifies the finding among the report's
	pure bool   // the witness is rejected for this finding's reason alone
}

// MarshalJSON writes the finding with "breaks" as a direction name.
func (f Finding) MarshalJSON() ([]byte, error) {
	type plain Finding
	return msg.Marshal(struct {
		Breaks    string `json:"breaks,omitempty"`
		Direction string `json:"direction"`
		plain
	}{f.Breaks.String(), f.Direction.String(), plain(f)})
}

// String returns the finding on one line:
//
//	/properties/kind: backward: enum-value-removed: <sentence>; witness: <message>
//
// The direction is "warning" for a warning. Control characters from the
// schema are escaped, so the line is one line.
func (f Finding) String() string {
	dir := f.Breaks.String()
	if f.Warning {
		dir = "warning"
	}
	var b strings.Builder
	b.WriteString(oneLine(orRoot(f.SchemaPointer)))
	b.WriteString(": " + dir + ": " + f.Code + ": " + oneLine(f.Message))
	if f.Witness != nil {
		b.WriteString("; witness: ")
		b.WriteString(oneLine(string(f.Witness)))
	}
	return b.String()
}

// oneLine escapes the characters of s that could end or disguise a line
// (msg.Escape, as every report of the library does). JSON text
// stays JSON: the escapes it writes for such characters are JSON's.
func oneLine(s string) string { return msg.Escape(s) }

// A Report is what Compare finds between two versions of a schema.
type Report struct {
	Old, New schemas.Schema
	Options  Options
	// Findings lists every difference, in the order of the schema.
	Findings []Finding
	// Omitted counts findings left out because the report reached its
	// size limit (a report is bounded by a small multiple of its schemas'
	// size); OmittedBreaks is set if any of them breaks.
	Omitted       int
	OmittedBreaks bool
	// Warnings says what CompareFiles found odd about the files
	// themselves, such as an $id outside the catalogue's base; they do not
	// change the verdict.
	Warnings []string
}

// MarshalJSON writes the report as msgcheck compat -json and the HTTP
// compatibility route answer it:
//
//	{"name":"demo.sensor","old":"1.1","new":"1.2","mode":"full","strict":false,"compatible":false,"findings":[...]}
//
// with "omitted", the count of findings left out, when there are any.
func (r *Report) MarshalJSON() ([]byte, error) {
	findings := r.Findings
	if findings == nil {
		findings = []Finding{}
	}
	return msg.Marshal(struct {
		Name       string    `json:"name"`
		Old        string    `json:"old"`
		New        string    `json:"new"`
		Mode       string    `json:"mode"`
		Strict     bool      `json:"strict"`
		Compatible bool      `json:"compatible"`
		Findings   []Finding `json:"findings"`
		Omitted    int       `json:"omitted,omitempty"`
		Warnings   []string  `json:"warnings,omitempty"`
	}{r.New.Name, r.Old.Version, r.New.Version, r.Options.Mode.String(), r.Options.Strict, r.Compatible(), findings, r.Omitted, r.Warnings})
}

// Compatible reports whether the new version is compatible with the old in
// the report's mode: no finding breaks (warnings do not).
func (r *Report) Compatible() bool {
	if r.OmittedBreaks {
		return false
	}
	for _, f := range r.Findings {
		if f.Breaks != 0 {
			return false
		}
	}
	return true
}

// Lines returns the report as the lines msgcheck prints, each finding
// prefixed with label (such as the new version's file name) and ": ".
func (r *Report) Lines(label string) []string {
	var lines []string
	for _, f := range r.Findings {
		lines = append(lines, oneLine(label)+": "+f.String())
	}
	if r.Omitted > 0 {
		lines = append(lines, fmt.Sprintf("%s: %s omitted: the report reached its size limit", oneLine(label), count(r.Omitted, "more finding", "more findings")))
	}
	return lines
}

// Summary says in a line what r found, as msgcheck compat prints it:
//
//	demo.sensor 1.2 is NOT compatible with demo.sensor 1.1 (full): 2 breaks, 1 warning
//
// The findings omitted are counted as breaks. The names come from the
// schema files: escape the line (msg.Escape) before printing it.
func (r *Report) Summary() string {
	breaks, warnings := r.Omitted, 0
	for _, f := range r.Findings {
		if f.Warning {
			warnings++
		} else {
			breaks++
		}
	}
	verdict := "compatible with"
	if !r.Compatible() {
		verdict = "NOT compatible with"
	}
	return fmt.Sprintf("%s is %s %s (%s): %s, %s",
		named(r.New), verdict, named(r.Old), r.Options.mode(),
		count(breaks, "break", "breaks"), count(warnings, "warning", "warnings"))
}

// named returns s's name and version, or its version alone for a file
// outside the catalogue without a title (whose version is its $id or
// which file it is: see readFile).
func named(s schemas.Schema) string {
	if s.Name == "" {
		return s.Version
	}
	return s.Name + " " + s.Version
}

// count returns n followed by one, if n is 1, or by many: "1 break",
// "2 breaks", "0 breaks".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// ErrDifferentSchemas is the error of Compare given two versions of
// different schemas.
var ErrDifferentSchemas = errors.New("compat: not two versions of one schema")

// Compare compares two versions of a schema, old and new, in opt's mode,
// and reports every difference (see the package documentation for what a
// difference is). A $ref by $id names a schema of the published
// catalogue. It returns an error if a schema file cannot be read as a JSON
// Schema, or if the two are not of the same name.
func Compare(old, new schemas.Schema, opt Options) (*Report, error) {
	if old.Name != new.Name {
		return nil, fmt.Errorf("%w: %s and %s", ErrDifferentSchemas, old.Name, new.Name)
	}
	return compare(old, new, old.JSON(), new.JSON(), opt, schemas.LookupID)
}

// compare compares the schema files oldJSON and newJSON, named by old and
// new.
func compare(old, new schemas.Schema, oldJSON, newJSON []byte, opt Options, lookup lookupFunc) (*Report, error) {
	a, err := parseSchema(oldJSON, old.Name, lookup)
	if err != nil {
		return nil, fmt.Errorf("compat: %s %s: %v", old.Name, old.Version, err)
	}
	b, err := parseSchema(newJSON, new.Name, lookup)
	if err != nil {
		return nil, fmt.Errorf("compat: %s %s: %v", new.Name, new.Version, err)
	}
	// The searches of patterns share a budget in proportion to the
	// schemas (see regular.go).
	budget := 4*maxRegularWork + 64*(len(oldJSON)+len(newJSON))
	a.share(&budget)
	b.share(&budget)
	c := &checker{
		opt: opt, old: a, new: b, oldVersion: old.Version, newVersion: new.Version,
		seen:   map[string]bool{},
		index:  map[string]int{},
		budget: 64<<10 + 16*(len(oldJSON)+len(newJSON)),
	}
	r := &Report{Old: old, New: new, Options: Options{Mode: opt.mode(), Strict: opt.Strict}}
	c.report = r
	c.compare()
	return r, nil
}

// CompareFiles compares two schema files, old and new, as Compare does,
// whatever their $id: a file whose $id is not one of the catalogue's
// (schemas.BaseURL + "/api/schemas/<name>/versions/<version>", either
// scheme) is compared all the same, named by its title and its $id, and
// the report says so in a warning. So are two files of different names.
// It returns an error for a file that is not a JSON Schema the checker
// can read, and for a catalogue $id with a file that does not match it
// (see schemas.Parse).
func CompareFiles(old, new []byte, opt Options) (*Report, error) {
	var warnings []string
	var files [2]schemas.Schema
	for i, data := range [][]byte{old, new} {
		s, warning, err := readFile(data, [2]string{"old", "new"}[i])
		if err != nil {
			return nil, &FileError{New: i == 1, Err: err}
		}
		files[i] = s
		if warning != "" {
			warnings = append(warnings, warning)
		}
	}
	if files[0].Name != files[1].Name && len(warnings) == 0 {
		// Two files of the catalogue: not two versions of one schema.
		return nil, fmt.Errorf("%w: %s and %s", ErrDifferentSchemas, files[0].Name, files[1].Name)
	}
	if files[0].Name != files[1].Name {
		warnings = append(warnings, fmt.Sprintf("the files name two schemas, %s and %s: compared all the same", strconv.Quote(files[0].Name), strconv.Quote(files[1].Name)))
		files[1].Name = files[0].Name // the extra rules of one schema judge both
	}
	r, err := compare(files[0], files[1], old, new, opt, schemas.LookupID)
	if err != nil {
		return nil, err
	}
	r.Warnings = warnings
	return r, nil
}

// A FileError is CompareFiles' error for a file it cannot read.
type FileError struct {
	New bool // the new file; else the old
	Err error
}

func (e *FileError) Error() string {
	which := "old"
	if e.New {
		which = "new"
	}
	return "compat: the " + which + " file: " + e.Err.Error()
}

// Unwrap returns the reason the file could not be read.
func (e *FileError) Unwrap() error { return e.Err }

// readFile reads a schema file for CompareFiles, which, when its $id is
// outside the catalogue's base, is named by its title (which is the name
// the catalogue's extra rules know) and by its $id, and warned of.
func readFile(data []byte, which string) (schemas.Schema, string, error) {
	var head struct {
		ID    string `json:"$id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return schemas.Schema{}, "", fmt.Errorf("not a JSON object: %v", err)
	}
	if s, err := schemas.Parse(data); err == nil {
		return s, "", nil
	} else if inBase(head.ID) {
		return schemas.Schema{}, "", err
	}
	version := head.ID
	warning := fmt.Sprintf("the %s file's $id %s is outside the catalogue's base %s: compared as a schema of its own", which, strconv.Quote(head.ID), schemas.BaseURL)
	if version == "" {
		version = which
		warning = fmt.Sprintf("the %s file has no $id: compared as a schema of its own", which)
	}
	return schemas.Schema{Name: head.Title, Version: version, ID: head.ID}, warning, nil
}

// inBase reports whether id is under the catalogue's schemas, in either
// scheme and any case of host (decision 9).
func inBase(id string) bool {
	return strings.HasPrefix(msg.CanonicalID(id), schemas.BaseURL+"/api/schemas/")
}

// CheckCatalogue compares, for every schema of c, every minor version with
// every earlier minor of its major (decision 13 asks for this transitive
// check: 1.2 must be compatible with 1.0, not only with 1.1). It returns
// the reports in order of name, major, newer version, older version; the
// catalogue is compatible when every report is.
func CheckCatalogue(c *schemas.Catalogue, opt Options) ([]*Report, error) {
	var reports []*Report
	all := c.All()
	for j, newer := range all {
		for i := 0; i < j; i++ {
			older := all[i]
			if older.Name != newer.Name || older.Major != newer.Major {
				continue
			}
			// A $ref by $id names a schema of this catalogue.
			r, err := compare(older, newer, older.JSON(), newer.JSON(), opt, c.LookupID)
			if err != nil {
				return nil, err
			}
			reports = append(reports, r)
		}
	}
	return reports, nil
}
