package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/fleetkit/catalogue/schemas"
)

// listSchemas prints the catalogue as a table: name, version and $id.
func listSchemas(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("schemas", "usage: msgcheck schemas\n\nPrint the catalogue: the name, version and $id of every schema.\n")
	if code, ok := fs.parseNone(args, stdout, stderr); !ok {
		return code
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tID")
	for _, s := range schemas.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Version, s.ID)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "msgcheck: %v\n", err)
		return 1
	}
	return 0
}
