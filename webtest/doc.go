// Package webtest tests the catalogue's pages in a real browser: headless
// Chromium, driven with chromedp, against msgcheck serve on loopback. It
// is a module of its own so that the library's go.mod stays free of
// chromedp; it has tests only.
//
//	cd webtest && go test ./...                      # screenshots under the test's temporary folder
//	cd webtest && go test ./... -pages.out ../doc/pages  # or in a folder of your choosing
//
// Without a browser (chromium, chromium-browser or google-chrome on the
// PATH) the tests say so and skip, except under CI=true, where a missing
// browser fails them.
package webtest
