// Package schemas is the message-schema catalogue: the published JSON Schema
// files, embedded in the binary, and lookups over them.
//
// Every schema is addressed by a name and a version, and by its $id,
// BaseURL + "/api/schemas/<name>/versions/<version>". The catalogue has
// been published under both http and https, so lookups by $id treat the two
// schemes as the same.
//
//	s, err := schemas.Lookup("core.device", "1.0")
//	if err != nil {
//		return err // errors.Is(err, schemas.ErrUnknown)
//	}
//	w.Write(s.JSON())
package schemas

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/fleetkit/catalogue/msg"
)

// BaseURL is the base of every schema's $id. It is defined here, once; the
// schema files carry it, and a test holds them to it.
const BaseURL = "https://catalogue.fleetkit.dev"

// ErrUnknown is the error, wrapped, of a lookup that names no schema in the
// catalogue. Test for it with errors.Is.
var ErrUnknown = errors.New("unknown schema")

//go:embed *.json registry-ids.txt
var files embed.FS

// Schema is one published schema at one version.
type Schema struct {
	Name        string   // the schema's name and title, such as "core.device"
	Version     string   // such as "1.0": MAJOR.MINOR (decision 13)
	Major       int      // the version's major number
	Minor       int      // the version's minor number
	ID          string   // the $id, BaseURL + "/api/schemas/<name>/versions/<version>"
	Dialect     string   // the $schema URI: the JSON Schema draft it is written in
	Description string   // what messages of this schema describe
	Required    []string // the members every message must have, as the schema lists them
	// RegistryID is the version's id in the schema-registry protocol and
	// its wire format (decision 15), recorded in the catalogue folder's
	// RegistryIDsFile; 0 for a schema read alone by Parse, or from a
	// folder without that file.
	RegistryID int32

	file string
	data []byte
}

// JSON returns the schema file's bytes, exactly as published. The slice is
// the caller's to keep or modify.
func (s Schema) JSON() []byte { return bytes.Clone(s.data) }

// File returns the name of the schema's file in the catalogue.
func (s Schema) File() string { return s.file }

// clone returns s with a Required of its own, so that callers cannot
// change the catalogue through it.
func (s Schema) clone() Schema {
	s.Required = slices.Clone(s.Required)
	return s
}

// A Catalogue is a set of schemas, each at one or more versions. The
// published one is embedded in the package, whose functions All, Lookup
// and the others read it; Load reads another, such as a folder of
// proposed versions or a test fixture. A Catalogue is immutable and safe
// for concurrent use.
type Catalogue struct {
	all []Schema // sorted by name, then version in numeric order
}

// published is the catalogue embedded in the package.
var published = mustLoad()

func mustLoad() *Catalogue {
	c, err := Load(files)
	if err != nil {
		// The files are embedded at build time and checked by the tests:
		// failing here means the build itself is broken.
		panic("schemas: " + err.Error())
	}
	return c
}

// Published returns the catalogue as published: the schema files embedded
// in the package.
func Published() *Catalogue { return published }

// Load reads a catalogue from the *.json files at the root of fsys, such
// as os.DirFS(dir). Each file must be a schema whose $id is
// BaseURL + "/api/schemas/<name>/versions/<version>", whose title is the
// name, whose version is MAJOR.MINOR (see ParseVersion) and whose file is
// named <name>-<version>.json. The registry ids come from the folder's
// RegistryIDsFile, which, when the folder has one, must give every version
// an id of its own.
func Load(fsys fs.FS) (*Catalogue, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	var all []Schema
	for _, file := range names {
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		s, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		if want := s.Name + "-" + s.Version + ".json"; file != want {
			return nil, fmt.Errorf("%s: file of %s version %s must be named %s", file, s.Name, s.Version, want)
		}
		s.file = file
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b Schema) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(a.Major, b.Major), cmp.Compare(a.Minor, b.Minor))
	})
	if err := readRegistryIDs(fsys, all); err != nil {
		return nil, err
	}
	return &Catalogue{all: all}, nil
}

// Parse reads one schema file: a JSON Schema whose $id is
// BaseURL + "/api/schemas/<name>/versions/<version>" (in either scheme),
// whose title is the name and whose version is MAJOR.MINOR (see
// ParseVersion), such as a proposed version of a schema before it is
// published. The Schema keeps its own copy of data; its File is "".
func Parse(data []byte) (Schema, error) {
	var head struct {
		ID          string   `json:"$id"`
		Dialect     string   `json:"$schema"`
		Title       string   `json:"title"`
		Description string   `json:"description"`
		Required    []string `json:"required"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Schema{}, err
	}
	name, version, ok := splitID(head.ID)
	if !ok {
		return Schema{}, fmt.Errorf("$id %q is not %s/api/schemas/<name>/versions/<version>", head.ID, BaseURL)
	}
	major, minor, err := ParseVersion(version)
	if err != nil {
		return Schema{}, err
	}
	if head.Title != name {
		return Schema{}, fmt.Errorf("title %q is not the name %q of its $id", head.Title, name)
	}
	return Schema{
		Name:        name,
		Version:     version,
		Major:       major,
		Minor:       minor,
		ID:          head.ID,
		Dialect:     head.Dialect,
		Description: head.Description,
		Required:    head.Required,
		data:        bytes.Clone(data),
	}, nil
}

// ParseVersion returns the major and minor numbers of a version of the
// form MAJOR.MINOR, two decimal integers without leading zeros (decision
// 13), such as "1.0" or "2.10". Versions compare by these numbers: "1.10"
// follows "1.9".
func ParseVersion(v string) (major, minor int, err error) {
	ma, mi, ok := strings.Cut(v, ".")
	if ok {
		major, ok = versionNumber(ma)
	}
	if ok {
		minor, ok = versionNumber(mi)
	}
	if !ok {
		return 0, 0, fmt.Errorf("version %q is not MAJOR.MINOR, two decimal integers without leading zeros", v)
	}
	return major, minor, nil
}

// versionNumber parses one part of a version: a decimal integer of at most
// nine digits (so that it fits an int anywhere) without leading zeros.
func versionNumber(s string) (int, bool) {
	if s == "" || len(s) > 9 || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// ID returns the $id of the named schema at version, whether or not the
// catalogue has it.
func ID(name, version string) string {
	return BaseURL + "/api/schemas/" + name + "/versions/" + version
}

// splitID returns the name and version that id addresses, if it is an $id
// under BaseURL, in either scheme, with its scheme and host in any case.
func splitID(id string) (name, version string, ok bool) {
	rest, ok := strings.CutPrefix(msg.CanonicalID(id), BaseURL+"/api/schemas/")
	if !ok {
		return "", "", false
	}
	name, version, ok = strings.Cut(rest, "/versions/")
	if !ok || name == "" || version == "" || strings.Contains(name, "/") || strings.Contains(version, "/") {
		return "", "", false
	}
	return name, version, true
}

// All returns every schema of the catalogue, sorted by name, then by
// version in numeric order.
func (c *Catalogue) All() []Schema {
	all := slices.Clone(c.all)
	for i := range all {
		all[i] = all[i].clone()
	}
	return all
}

// Names returns the names of the catalogue's schemas, sorted.
func (c *Catalogue) Names() []string {
	var names []string
	for _, s := range c.all {
		if len(names) == 0 || names[len(names)-1] != s.Name {
			names = append(names, s.Name)
		}
	}
	return names
}

// versionsOf returns the versions of the named schema, oldest first, as a
// slice of the catalogue's own.
func (c *Catalogue) versionsOf(name string) []Schema {
	i, _ := slices.BinarySearchFunc(c.all, name, func(s Schema, name string) int { return strings.Compare(s.Name, name) })
	j := i
	for j < len(c.all) && c.all[j].Name == name {
		j++
	}
	return c.all[i:j]
}

// Versions returns the versions of the named schema, oldest first. It
// returns an error wrapping ErrUnknown if the catalogue has no schema of
// that name.
func (c *Catalogue) Versions(name string) ([]string, error) {
	all := c.versionsOf(name)
	if len(all) == 0 {
		return nil, fmt.Errorf("%w %q", ErrUnknown, name)
	}
	versions := make([]string, len(all))
	for i, s := range all {
		versions[i] = s.Version
	}
	return versions, nil
}

// Lookup returns the named schema at version. It returns an error wrapping
// ErrUnknown if the catalogue has no such schema.
func (c *Catalogue) Lookup(name, version string) (Schema, error) {
	for _, s := range c.versionsOf(name) {
		if s.Version == version {
			return s.clone(), nil
		}
	}
	return Schema{}, fmt.Errorf("%w %q version %q", ErrUnknown, name, version)
}

// Latest returns the named schema at its latest version: the latest minor
// of its latest major. It is the version by which a message is judged when
// no version is named (a message carries its family, not its version). It
// returns an error wrapping ErrUnknown if the catalogue has no schema of
// that name.
func (c *Catalogue) Latest(name string) (Schema, error) {
	all := c.versionsOf(name)
	if len(all) == 0 {
		return Schema{}, fmt.Errorf("%w %q", ErrUnknown, name)
	}
	return all[len(all)-1].clone(), nil
}

// LatestOf returns the named schema at the latest minor version of major:
// the version the Go type of that major follows. It returns an error
// wrapping ErrUnknown if the catalogue has no version of that major.
func (c *Catalogue) LatestOf(name string, major int) (Schema, error) {
	all := c.versionsOf(name)
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Major == major {
			return all[i].clone(), nil
		}
	}
	return Schema{}, fmt.Errorf("%w %q version %d.x", ErrUnknown, name, major)
}

// Majors returns the major versions of the named schema, in order. It
// returns an error wrapping ErrUnknown if the catalogue has no schema of
// that name.
func (c *Catalogue) Majors(name string) ([]int, error) {
	all := c.versionsOf(name)
	if len(all) == 0 {
		return nil, fmt.Errorf("%w %q", ErrUnknown, name)
	}
	var majors []int
	for _, s := range all {
		if len(majors) == 0 || majors[len(majors)-1] != s.Major {
			majors = append(majors, s.Major)
		}
	}
	return majors, nil
}

// LookupID returns the schema whose $id is id. The scheme may be http or
// https: the catalogue has been published under both. The scheme and host
// are compared regardless of case, as URIs compare them, and the path as
// it is. It returns an error wrapping ErrUnknown if no schema has that $id.
func (c *Catalogue) LookupID(id string) (Schema, error) {
	if name, version, ok := splitID(id); ok {
		if s, err := c.Lookup(name, version); err == nil {
			return s, nil
		}
	}
	return Schema{}, fmt.Errorf("%w with $id %q", ErrUnknown, id)
}

// All returns every schema of the published catalogue, sorted by name,
// then by version in numeric order.
func All() []Schema { return published.All() }

// Names returns the names of the published catalogue's schemas, sorted.
func Names() []string { return published.Names() }

// Versions returns the published versions of the named schema, oldest
// first. It returns an error wrapping ErrUnknown if the catalogue has no
// schema of that name.
func Versions(name string) ([]string, error) { return published.Versions(name) }

// Lookup returns the named schema at version from the published catalogue.
// It returns an error wrapping ErrUnknown if the catalogue has no such
// schema.
func Lookup(name, version string) (Schema, error) { return published.Lookup(name, version) }

// Latest returns the named schema at its latest published version (see
// Catalogue.Latest).
func Latest(name string) (Schema, error) { return published.Latest(name) }

// LatestOf returns the named schema at the latest published minor version
// of major (see Catalogue.LatestOf).
func LatestOf(name string, major int) (Schema, error) { return published.LatestOf(name, major) }

// Majors returns the published major versions of the named schema, in
// order.
func Majors(name string) ([]int, error) { return published.Majors(name) }

// LookupID returns the published schema whose $id is id (see
// Catalogue.LookupID).
func LookupID(id string) (Schema, error) { return published.LookupID(id) }
