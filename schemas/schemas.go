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
	"strconv"
	"strings"
)

// BaseURL is the base of every schema's $id. It is defined here, once; the
// schema files carry it, and a test holds them to it.
const BaseURL = "https://catalogue.fleetkit.dev"

// ErrUnknown is the error, wrapped, of a lookup that names no schema in the
// catalogue. Test for it with errors.Is.
var ErrUnknown = errors.New("unknown schema")

//go:embed *.json
var files embed.FS

// Schema is one published schema at one version.
type Schema struct {
	Name        string   // the schema's name and title, such as "core.device"
	Version     string   // such as "1.0"
	ID          string   // the $id, BaseURL + "/api/schemas/<name>/versions/<version>"
	Dialect     string   // the $schema URI: the JSON Schema draft it is written in
	Description string   // what messages of this schema describe
	Required    []string // the members every message must have, as the schema lists them

	file string
	data []byte
}

// JSON returns the schema file's bytes, exactly as published. The slice is
// the caller's to keep or modify.
func (s Schema) JSON() []byte { return bytes.Clone(s.data) }

// File returns the name of the schema's file in the catalogue.
func (s Schema) File() string { return s.file }

// catalogue holds every schema, sorted by name then version.
var catalogue = mustLoad()

func mustLoad() []Schema {
	s, err := load(files)
	if err != nil {
		// The files are embedded at build time and checked by the tests:
		// failing here means the build itself is broken.
		panic("schemas: " + err.Error())
	}
	return s
}

func load(fsys fs.FS) ([]Schema, error) {
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
		var head struct {
			ID          string   `json:"$id"`
			Dialect     string   `json:"$schema"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Required    []string `json:"required"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		name, version, ok := splitID(head.ID)
		if !ok {
			return nil, fmt.Errorf("%s: $id %q is not %s/api/schemas/<name>/versions/<version>", file, head.ID, BaseURL)
		}
		if head.Title != name {
			return nil, fmt.Errorf("%s: title %q is not the name %q of its $id", file, head.Title, name)
		}
		if want := name + "-" + version + ".json"; file != want {
			return nil, fmt.Errorf("%s: file of %s version %s must be named %s", file, name, version, want)
		}
		all = append(all, Schema{
			Name:        name,
			Version:     version,
			ID:          head.ID,
			Dialect:     head.Dialect,
			Description: head.Description,
			Required:    head.Required,
			file:        file,
			data:        data,
		})
	}
	slices.SortFunc(all, func(a, b Schema) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return compareVersions(a.Version, b.Version)
	})
	return all, nil
}

// compareVersions orders dotted versions by their numeric parts, so that
// "1.10" comes after "1.9"; parts that are not numbers compare as text.
func compareVersions(a, b string) int {
	for a != "" || b != "" {
		var pa, pb string
		pa, a, _ = strings.Cut(a, ".")
		pb, b, _ = strings.Cut(b, ".")
		na, errA := strconv.Atoi(pa)
		nb, errB := strconv.Atoi(pb)
		if errA == nil && errB == nil {
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if c := strings.Compare(pa, pb); c != 0 {
			return c
		}
	}
	return 0
}

// ID returns the $id of the named schema at version, whether or not the
// catalogue has it.
func ID(name, version string) string {
	return BaseURL + "/api/schemas/" + name + "/versions/" + version
}

// splitID returns the name and version that id addresses, if it is an $id
// under BaseURL, in either scheme, with its scheme and host in any case.
func splitID(id string) (name, version string, ok bool) {
	rest, ok := strings.CutPrefix(canonicalURL(id), BaseURL+"/api/schemas/")
	if !ok {
		return "", "", false
	}
	name, version, ok = strings.Cut(rest, "/versions/")
	if !ok || name == "" || version == "" || strings.Contains(name, "/") || strings.Contains(version, "/") {
		return "", "", false
	}
	return name, version, true
}

// canonicalURL rewrites the parts of a URL that compare regardless of case
// (RFC 3986, 6.2.2.1), its scheme and host, in lower case, and an http URL
// to https, so that URLs that differ only there compare equal. The path
// keeps its case: it is compared as it is.
func canonicalURL(id string) string {
	scheme, rest, ok := strings.Cut(id, "://")
	if !ok {
		return id
	}
	host, path, ok := strings.Cut(rest, "/")
	if !ok {
		return id
	}
	scheme = strings.ToLower(scheme)
	if scheme == "http" {
		scheme = "https"
	}
	return scheme + "://" + strings.ToLower(host) + "/" + path
}

// All returns every schema in the catalogue, sorted by name, then version.
func All() []Schema {
	all := slices.Clone(catalogue)
	for i := range all {
		all[i].Required = slices.Clone(all[i].Required)
	}
	return all
}

// Versions returns the versions of the named schema, oldest first. It returns
// an error wrapping ErrUnknown if the catalogue has no schema of that name.
func Versions(name string) ([]string, error) {
	var versions []string
	for _, s := range catalogue {
		if s.Name == name {
			versions = append(versions, s.Version)
		}
	}
	if versions == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknown, name)
	}
	return versions, nil
}

// Lookup returns the named schema at version. It returns an error wrapping
// ErrUnknown if the catalogue has no such schema.
func Lookup(name, version string) (Schema, error) {
	for _, s := range catalogue {
		if s.Name == name && s.Version == version {
			s.Required = slices.Clone(s.Required)
			return s, nil
		}
	}
	return Schema{}, fmt.Errorf("%w %q version %q", ErrUnknown, name, version)
}

// LookupID returns the schema whose $id is id. The scheme may be http or
// https: the catalogue has been published under both. The scheme and host
// are compared regardless of case, as URIs compare them, and the path as
// it is. It returns an error wrapping ErrUnknown if no schema has that $id.
func LookupID(id string) (Schema, error) {
	if name, version, ok := splitID(id); ok {
		if s, err := Lookup(name, version); err == nil {
			return s, nil
		}
	}
	return Schema{}, fmt.Errorf("%w with $id %q", ErrUnknown, id)
}
