package pages_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/pages"
	"github.com/fleetkit/catalogue/schemas"
)

// The pages beside the API, as msgcheck serve serves them: a message
// posted to a version page's form comes back on the page, with the
// library's verdict.
func ExampleNew() {
	site, err := pages.New(schemas.Published(), pages.Options{Kinds: catalogue.Kinds, API: "/api"})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(api.Handler(api.Fallback(site)))
	defer srv.Close()

	resp, err := http.PostForm(srv.URL+"/schemas/core.device/1.0.html", url.Values{
		"message": {`{"imei": "490154203237519"}`},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Status)
	fmt.Printf("%s\n", regexp.MustCompile(`<p class="invalid">(.*?)</p>`).FindSubmatch(page)[1])
	fmt.Printf("%s\n", regexp.MustCompile(`<tr id="member/imei"[^>]*class="violated">(?s:.*?)<li>(.*?)</li>`).FindSubmatch(page)[1])
	// Output:
	// 200 OK
	// Invalid: 9 violations.
	// <strong>imei</strong>: not an IMEI: check digit is 9, want 8 (got <code>&#34;490154203237519&#34;</code>)
}

// The same pages as a static site, for any file server.
func ExampleSite_WriteFiles() {
	site, err := pages.New(schemas.Published(), pages.Options{Kinds: catalogue.Kinds})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "site")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := site.WriteFiles(dir); err != nil {
		log.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "schemas", "core.device", "*"))
	for _, f := range files {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// 1.0.html
	// 1.0.json
}
