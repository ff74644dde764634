package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"

	"github.com/fleetkit/catalogue/schemas"
)

// ledgerComment is the comment after a version's entry in kinds_gen.go:
// its registry id, for checkRegistryIDs to read back.
func ledgerComment(s input) string {
	if s.RegistryID == 0 {
		return ""
	}
	return fmt.Sprintf(" // %s %s: registry id %d", s.Name, s.Version, s.RegistryID)
}

// ledgerLine matches a ledger comment in kinds_gen.go.
var ledgerLine = regexp.MustCompile(`(?m)// (\S+) (\S+): registry id ([0-9]+)$`)

// checkRegistryIDs refuses a catalogue whose registry ids are missing (a
// version without one: schemas.Load has refused those it repeats), or
// that changes an id generated before, as the ledger of the table at
// tablePath records them: an id, once published, names its version for
// ever (decision 15). An id given to another version changes the id of
// the version that had it, or removes that version, and is refused as
// such. A table that does not exist yet records none.
func checkRegistryIDs(c *schemas.Catalogue, tablePath string) error {
	now := map[string]int32{}
	for _, s := range c.All() {
		key := s.Name + " " + s.Version
		if s.RegistryID == 0 {
			return fmt.Errorf("%s version %s has no registry id: give it the next unused one in %s beside the schema files", s.Name, s.Version, schemas.RegistryIDsFile)
		}
		now[key] = s.RegistryID
	}
	old, err := os.ReadFile(tablePath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, m := range ledgerLine.FindAllStringSubmatch(string(old), -1) {
		key := m[1] + " " + m[2]
		id64, err := strconv.ParseInt(m[3], 10, 32)
		if err != nil {
			return fmt.Errorf("%s: registry id %q of %s: %v", tablePath, m[3], key, err)
		}
		id := int32(id64)
		switch got, ok := now[key]; {
		case !ok:
			return fmt.Errorf("%s version %s, registry id %d, is gone from the catalogue: a published version is never removed", m[1], m[2], id)
		case got != id:
			return fmt.Errorf("%s version %s has registry id %d, but was generated with %d: a registry id never changes", m[1], m[2], got, id)
		}
	}
	return nil
}
