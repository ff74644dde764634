package main

import (
	"errors"
	"strings"

	"github.com/fleetkit/catalogue/compat"
)

// checkCompatible holds cfg's catalogue to decision 13 before anything is
// generated: every minor version must be fully compatible with every
// earlier minor of its major, since the major's type follows its latest
// minor and must decode the messages of them all. It returns an error
// listing every finding that breaks, one a line, each with its witness,
// and otherwise the warnings: what is compatible only under the decision's
// declared-members assumption, which is never passed over in silence.
func checkCompatible(cfg config) (warnings []string, err error) {
	reports, err := compat.CheckCatalogue(cfg.Catalogue, compat.Options{Mode: compat.Full})
	if err != nil {
		return nil, err
	}
	var breaks []string
	for _, r := range reports {
		label := cfg.Dir + "/" + r.New.File() + " against " + r.Old.Version
		// Report.Lines writes a line per finding, in order, then one for
		// the findings omitted, if any: each goes with the breaks or the
		// warnings as what it says does.
		for i, line := range r.Lines(label) {
			breaking := r.OmittedBreaks
			if i < len(r.Findings) {
				breaking = r.Findings[i].Breaks != 0
			}
			if breaking {
				breaks = append(breaks, line)
			} else {
				warnings = append(warnings, line)
			}
		}
	}
	if len(breaks) > 0 {
		return nil, errors.New(cfg.Dir + ": a minor version breaks an earlier minor of its major, which takes a new major version (decision 13); nothing is generated:\n\t" + strings.Join(breaks, "\n\t"))
	}
	return warnings, nil
}
