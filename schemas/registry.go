package schemas

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
)

// RegistryIDsFile is the file of a catalogue folder, beside its schema
// files, that records the registry id of each schema version (decision
// 15): one line per version, "NAME VERSION ID" separated by white space,
// and lines starting with # as comments. An id is assigned once, when its
// version is published, and never changed or given to another version:
// a new version adds a line, and no line is ever edited or removed.
const RegistryIDsFile = "registry-ids.txt"

// MaxRegistryID is the largest registry id: ids are positive 32-bit
// integers, as the schema-registry protocol and its wire format carry them.
const MaxRegistryID = math.MaxInt32

// readRegistryIDs sets the RegistryID of each schema of all from the
// RegistryIDsFile of fsys. A folder without the file leaves every id 0;
// a file that misses a version, names a version the folder does not hold,
// lists one twice or gives two versions one id is refused, line by line.
func readRegistryIDs(fsys fs.FS, all []Schema) error {
	data, err := fs.ReadFile(fsys, RegistryIDsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	index := make(map[string]int, len(all)) // name and version to place in all
	for i, s := range all {
		index[s.Name+" "+s.Version] = i
	}
	byID := make(map[int32]string, len(all))
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		at := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", RegistryIDsFile, line, fmt.Sprintf(format, args...))
		}
		fields := strings.Fields(text)
		if len(fields) != 3 {
			return at("want NAME VERSION ID, got %q", text)
		}
		name, version := fields[0], fields[1]
		id, ok := parseRegistryID(fields[2])
		if !ok {
			return at("registry id %q is not a decimal integer from 1 to %d without leading zeros", fields[2], MaxRegistryID)
		}
		i, ok := index[name+" "+version]
		if !ok {
			return at("%s version %s has no schema file in the catalogue", name, version)
		}
		if all[i].RegistryID != 0 {
			return at("%s version %s has a registry id already, %d", name, version, all[i].RegistryID)
		}
		if other, taken := byID[id]; taken {
			return at("registry id %d is %s's already", id, other)
		}
		byID[id] = name + " version " + version
		all[i].RegistryID = id
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", RegistryIDsFile, err)
	}
	for _, s := range all {
		if s.RegistryID == 0 {
			return fmt.Errorf("%s: %s version %s has no registry id: give it the next unused one", RegistryIDsFile, s.Name, s.Version)
		}
	}
	return nil
}

// parseRegistryID parses a registry id: a decimal integer from 1 to
// MaxRegistryID, without sign or leading zeros, so that each id has one
// spelling.
func parseRegistryID(s string) (int32, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 1 {
		return 0, false
	}
	return int32(n), true
}

// LookupRegistryID returns the schema version whose registry id is id. It
// returns an error wrapping ErrUnknown if no version has that id.
func (c *Catalogue) LookupRegistryID(id int32) (Schema, error) {
	if id > 0 {
		for _, s := range c.all {
			if s.RegistryID == id {
				return s.clone(), nil
			}
		}
	}
	return Schema{}, fmt.Errorf("%w with registry id %d", ErrUnknown, id)
}

// LookupRegistryID returns the published schema version whose registry id
// is id (see Catalogue.LookupRegistryID).
func LookupRegistryID(id int32) (Schema, error) { return published.LookupRegistryID(id) }
