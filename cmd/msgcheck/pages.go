package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/msg"
	"github.com/fleetkit/catalogue/pages"
	"github.com/fleetkit/catalogue/schemas"
)

// pagesCmd writes the catalogue's pages as a static site.
func pagesCmd(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("pages", "usage: msgcheck pages -o DIR [-catalogue DIR]\n\nWrite the catalogue's pages as a static site into the folder -o names, for any file server. A static site has no server to judge a message: its version pages say so where msgcheck serve shows a form.\n")
	out := fs.String("o", "", "the `folder` to write the site into (required)")
	dir := fs.String("catalogue", "", "the `folder` of schema files to show; by default the published catalogue")
	if code, ok := fs.parseNone(args, stdout, stderr); !ok {
		return code
	}
	if *out == "" {
		fmt.Fprintln(stderr, "msgcheck pages: -o DIR is required")
		fs.printUsage(stderr)
		return 2
	}
	site, _, err := siteOf(*dir, "")
	if err != nil {
		fmt.Fprintf(stderr, "msgcheck: %v\n", err)
		return 1
	}
	if err := site.WriteFiles(*out); err != nil {
		fmt.Fprintf(stderr, "msgcheck: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "msgcheck: wrote %d files into %s\n", len(site.Paths())-1, *out)
	return 0
}

// siteOf returns the pages of the catalogue in dir, or of the published
// catalogue if dir is "", and whether that catalogue is the published
// one (with api the path the API serves it under, given to the pages'
// form). The library's generated types judge the versions whose files
// are exactly the published ones; a folder's other versions have none
// here, and their pages say so.
func siteOf(dir, api string) (*pages.Site, bool, error) {
	c := schemas.Published()
	if dir != "" {
		var err error
		if _, err := os.Stat(dir); err != nil {
			return nil, false, err
		}
		if c, err = schemas.Load(os.DirFS(dir)); err != nil {
			return nil, false, fmt.Errorf("%s: %v", dir, err)
		}
		if len(c.Names()) == 0 {
			// A typo in the folder's name must not make an empty site.
			return nil, false, fmt.Errorf("%s: no schema files (*.json)", dir)
		}
	}
	published := samePublished(c)
	opt := pages.Options{Kinds: kindsOf(c)}
	if published {
		opt.API = api
	}
	site, err := pages.New(c, opt)
	return site, published, err
}

// kindsOf returns the kinds of catalogue.Kinds whose schema file is byte
// for byte c's, the file their types were generated from: msgcheck has no
// Go type generated from any other version of c.
func kindsOf(c *schemas.Catalogue) *msg.Kinds {
	var kinds []*msg.Kind
	for _, k := range catalogue.Kinds.All() {
		mine, err := c.Lookup(k.Name, k.Version)
		if err != nil {
			continue
		}
		if p, err := schemas.Lookup(k.Name, k.Version); err == nil && bytes.Equal(mine.JSON(), p.JSON()) {
			kinds = append(kinds, k)
		}
	}
	return msg.NewKinds(nil, kinds...)
}

// samePublished reports whether every schema file of c is the published
// one, and c has every published version.
func samePublished(c *schemas.Catalogue) bool {
	all, pub := c.All(), schemas.All()
	if len(all) != len(pub) {
		return false
	}
	for i := range all {
		if all[i].Name != pub[i].Name || all[i].Version != pub[i].Version || !bytes.Equal(all[i].JSON(), pub[i].JSON()) {
			return false
		}
	}
	return true
}
