// Package pages renders the message-schema catalogue as HTML pages a
// person can read, and serves them: an index of every schema, a page per
// version of each (its members as a table, an example message, its $id,
// its file and its Go type, and a form to try a message) and a page
// comparing any two versions of a schema, every break proved by a
// message.
//
//	site, err := pages.New(schemas.Published(), pages.Options{Kinds: catalogue.Kinds, API: "/api"})
//	if err != nil {
//		return err
//	}
//	// Beside the API: /api/ for it, every other path for the pages.
//	http.ListenAndServe("127.0.0.1:8080", api.Handler(api.Fallback(site)))
//
// or, as a static site that any file server can host,
//
//	err = site.WriteFiles("site")
//
// Everything comes from the catalogue's own data, as gen and compat read
// it: the members from the schema files, the comparisons from package
// compat, the Go types from the generated table of kinds (Options.Kinds), and the
// example of each version from compat's values, judged by the generated
// type before it is shown: New fails rather than show an example the
// library rejects.
//
// Each page is rendered once, by New: serving one is a map lookup and a
// write. Only the answer to a posted message is rendered when asked: the
// version page, the message echoed in its form and each violation in the
// row of its member. The form works without JavaScript; with it, and
// with Options.API, it also validates as one types through the API's
// validation route. A static site has no server to judge a message: its
// version pages say so where the form would be.
//
// The pages fetch nothing from elsewhere (no fonts, scripts or styles but
// the site's own, which a Content-Security-Policy header holds them to),
// read on a phone, print without their navigation and form, and use
// tables with captions and header cells, labelled fields and colours of
// at least 4.5:1 contrast. A posted message is an attacker's: html/template
// escapes its echo and every violation, the body is bounded by
// api.MaxMessageBytes (form-encoded: three times it), at most MaxForms
// are judged at once, and no header of an answer carries anything of the
// request.
package pages
