package webtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/fleetkit/catalogue/compat"
	"github.com/fleetkit/catalogue/schemas"
)

var pagesOut = flag.String("pages.out", "", "the `folder` to save the screenshots in; by default the test's temporary folder")

// msgcheck is the command under test, built once by TestMain.
var msgcheck string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "webtest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	msgcheck = filepath.Join(dir, "msgcheck")
	build := exec.Command("go", "build", "-o", msgcheck, "github.com/fleetkit/catalogue/cmd/msgcheck")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building msgcheck:", err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// serve starts msgcheck serve on a free loopback port, with args, and
// returns its origin, such as http://127.0.0.1:34567. It stops the
// server, with SIGINT, when the test ends.
func serve(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(msgcheck, append([]string{"serve", "-addr", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	var origin string
	for lines.Scan() {
		if _, url, ok := strings.Cut(lines.Text(), "serving the catalogue on "); ok {
			origin = url
			break
		}
		t.Log(lines.Text())
	}
	if origin == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("msgcheck serve did not say where it serves")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	return origin
}

// browserPath returns the path of Chromium. Without one it skips the
// test, saying so, or under CI=true fails it: CI installs Chromium.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "no browser found: none of chromium, chromium-browser, google-chrome is on the PATH (on Debian: apt-get install chromium)"
	if os.Getenv("CI") == "true" {
		t.Fatal(why + "; under CI the browser tests must run")
	}
	t.Skip(why + "; skipping the browser tests")
	return ""
}

// A tab is a headless Chromium tab that records every request its pages
// make.
type tab struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string
}

// newTab starts headless Chromium with a fresh profile and returns a tab
// of it, closed when the test ends.
func newTab(t *testing.T) *tab {
	t.Helper()
	path := browserPath(t)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	tb := &tab{ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			tb.mu.Lock()
			tb.requests = append(tb.requests, e.Request.URL)
			tb.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1200, 900)); err != nil {
		t.Fatal(err)
	}
	return tb
}

// do runs actions with a time limit, failing the test on an error.
func (tb *tab) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page, its value decoded
// into T.
func eval[T any](t *testing.T, tb *tab, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// screenshot saves what the tab shows as name (a PNG) in -pages.out, or
// in the test's temporary folder.
func (tb *tab) screenshot(t *testing.T, name string) {
	t.Helper()
	dir := *pagesOut
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// checkOrigin fails the test if a page of the tab requested anything but
// origin's own resources.
func (tb *tab) checkOrigin(t *testing.T, origin string) {
	t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.requests) == 0 {
		t.Fatal("no request was seen: the listener is not working")
	}
	for _, u := range tb.requests {
		if !strings.HasPrefix(u, origin+"/") {
			t.Errorf("a request left the server's origin %s: %s", origin, u)
		}
	}
}

// row is a member's row of a version page, as the browser shows it.
type row struct {
	Member, Required, Default string
}

const rowsJS = `Array.from(document.querySelectorAll("#members tbody tr")).map(tr => ({
	Member: tr.querySelector("th").innerText.trim(),
	Required: tr.querySelector("td.required").innerText.trim(),
	Default: tr.querySelector("td.default").innerText.trim(),
}))`

// wantRows returns the rows a schema file asks for, read from the file
// here with encoding/json, independently of package pages: every member
// at any depth, whether its object requires it, and its default as
// compact JSON text, or "none".
func wantRows(t *testing.T, data []byte) []row {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var root map[string]any
	if err := d.Decode(&root); err != nil {
		t.Fatal(err)
	}
	var rows []row
	var walk func(obj map[string]any, prefix string)
	walk = func(obj map[string]any, prefix string) {
		props, _ := obj["properties"].(map[string]any)
		var required []string
		if r, ok := obj["required"].([]any); ok {
			for _, n := range r {
				required = append(required, n.(string))
			}
		}
		for _, name := range required {
			if _, ok := props[name]; !ok {
				rows = append(rows, row{prefix + "/" + escape(name), "required", "none"})
			}
		}
		for name, p := range props {
			ptr := prefix + "/" + escape(name)
			r := row{Member: ptr, Required: "optional", Default: "none"}
			if slices.Contains(required, name) {
				r.Required = "required"
			}
			s, _ := p.(map[string]any)
			if def, ok := s["default"]; ok {
				var b bytes.Buffer
				e := json.NewEncoder(&b)
				e.SetEscapeHTML(false)
				e.Encode(def)
				r.Default = strings.TrimSpace(b.String())
			}
			rows = append(rows, r)
			walk(s, ptr)
			if items, ok := s["items"].(map[string]any); ok {
				walk(items, ptr+"/*")
			}
		}
	}
	walk(root, "")
	return rows
}

func escape(name string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

func sortRows(rows []row) []row {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.Member, b.Member) })
	return rows
}

// TestEveryMemberIsInItsTable opens the page of every published schema
// version and checks, in what the browser renders, that its table has a
// row for every member the schema file declares, at any depth, with the
// right required flag and default, and no other row.
func TestEveryMemberIsInItsTable(t *testing.T) {
	tb := newTab(t)
	origin := serve(t)
	tb.do(t, chromedp.Navigate(origin+"/"))
	listed := eval[[]string](t, tb, `Array.from(document.querySelectorAll("#schemas tbody th")).map(th => th.innerText.trim())`)
	if !slices.Equal(listed, schemas.Names()) {
		t.Errorf("the index lists %v, want %v", listed, schemas.Names())
	}
	tb.screenshot(t, "index.png")
	tb.checkAccessible(t, "the index")

	for _, s := range schemas.All() {
		tb.do(t, chromedp.Navigate(origin+"/schemas/"+s.Name+"/"+s.Version+".html"))
		got := eval[[]row](t, tb, rowsJS)
		want := wantRows(t, s.JSON())
		if len(want) == 0 {
			t.Fatalf("%s: no members found in the file", s.Name)
		}
		if g, w := sortRows(got), sortRows(want); !slices.Equal(g, w) {
			t.Errorf("%s %s: the table shows\n%v\nwant\n%v", s.Name, s.Version, g, w)
		}
		if example := eval[string](t, tb, `document.getElementById("example").innerText`); !json.Valid([]byte(example)) {
			t.Errorf("%s: the example is not JSON: %s", s.Name, example)
		}
		tb.checkAccessible(t, s.Name+" "+s.Version)
	}

	tb.do(t, chromedp.Navigate(origin+"/schemas/core.device/1.0.html"))
	tb.screenshot(t, "schema.png")
	tb.checkPrint(t)
	// On a phone the page does not scroll sideways: each member is a card.
	tb.do(t, chromedp.EmulateViewport(375, 812))
	if wide := eval[bool](t, tb, `document.documentElement.scrollWidth > window.innerWidth`); wide {
		t.Error("at 375 pixels wide the page is wider than the screen")
	}
	if d := eval[string](t, tb, `getComputedStyle(document.querySelector("#members tbody tr")).display`); d != "block" {
		t.Errorf("at 375 pixels wide a member's row is displayed %s, not as a card", d)
	}
	tb.checkOrigin(t, origin)
}

// TestFormShowsTheIMEIViolation posts, through the page's form with
// JavaScript off, a device whose IMEI has a wrong check digit, and checks
// that the browser shows the violation in the row of /imei; then, with
// JavaScript on, that typing brings the same verdict from the API, and
// the verdict on the corrected message.
func TestFormShowsTheIMEIViolation(t *testing.T) {
	tb := newTab(t)
	origin := serve(t)
	device, err := os.ReadFile("../testdata/device.json")
	if err != nil {
		t.Fatal(err)
	}
	page := origin + "/schemas/core.device/1.0.html"
	setScripts := func(on bool) {
		ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
		defer cancel()
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on}); err != nil {
			t.Fatal(err)
		}
	}
	violated := func() []string {
		return eval[[]string](t, tb, `Array.from(document.querySelectorAll("tr.violated")).map(tr => tr.dataset.member)`)
	}
	const imeiViolation = "not an IMEI: check digit is 9, want 8"

	setScripts(false)
	tb.do(t, chromedp.Navigate(page))
	if on := eval[bool](t, tb, `document.querySelector("form").hasAttribute("data-judging")`); on {
		t.Fatal("the script ran with JavaScript off")
	}
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.RunResponse(ctx,
		chromedp.SetValue(chromedp.CSS("#message"), string(device)),
		chromedp.Click(chromedp.CSS(`form button[type="submit"]`)),
	); err != nil {
		t.Fatal(err)
	}
	if row := eval[string](t, tb, `document.querySelector('tr[data-member="/imei"]').innerText`); !strings.Contains(row, imeiViolation) {
		t.Errorf("the /imei row shows %q", row)
	}
	if v := violated(); !slices.Equal(v, []string{"/imei"}) {
		t.Errorf("rows marked violated: %v, want [/imei]", v)
	}
	verdict := eval[string](t, tb, `document.getElementById("verdict").innerText`)
	if !strings.Contains(verdict, "Invalid: 1 violation") || !strings.Contains(verdict, "/imei") {
		t.Errorf("the verdict reads %q", verdict)
	}
	if echoed := eval[string](t, tb, `document.getElementById("message").value`); echoed != string(device) {
		t.Errorf("the form echoes %q", echoed)
	}
	if target := eval[string](t, tb, `(() => { const a = document.querySelector("#verdict a"); const e = a && document.getElementById(decodeURIComponent(a.hash.slice(1))); return e ? e.dataset.member : ""; })()`); target != "/imei" {
		t.Errorf("the violation in the verdict links to %q, want the row of /imei", target)
	}
	tb.checkAccessible(t, "a verdict")

	// With JavaScript the verdict follows as one types, from the API.
	setScripts(true)
	tb.do(t,
		chromedp.Navigate(page),
		chromedp.SetValue(chromedp.CSS("#message"), strings.TrimSpace(string(device))),
		chromedp.SendKeys(chromedp.CSS("#message"), " "),
		chromedp.WaitVisible(chromedp.CSS("#verdict p.invalid")),
	)
	if row := eval[string](t, tb, `document.querySelector('tr[data-member="/imei"]').innerText`); !strings.Contains(row, imeiViolation) {
		t.Errorf("as one types, the /imei row shows %q", row)
	}
	if v := violated(); !slices.Equal(v, []string{"/imei"}) {
		t.Errorf("as one types, rows marked violated: %v, want [/imei]", v)
	}
	fixed := strings.Replace(string(device), "490154203237519", "490154203237518", 1)
	tb.do(t,
		chromedp.SetValue(chromedp.CSS("#message"), strings.TrimSpace(fixed)),
		chromedp.SendKeys(chromedp.CSS("#message"), " "),
		chromedp.WaitVisible(chromedp.CSS("#verdict p.valid")),
	)
	if v := violated(); len(v) != 0 {
		t.Errorf("rows still marked violated for a valid message: %v", v)
	}
	tb.mu.Lock()
	api := slices.Contains(tb.requests, origin+"/api/schemas/core.device/versions/1.0/validate")
	tb.mu.Unlock()
	if !api {
		t.Error("typing did not ask the validation route")
	}
	tb.checkOrigin(t, origin)
}

// TestComparisonListsEveryFindingWithItsWitness opens the comparison
// pages of the fixture's refused breaking minor and checks, in what the
// browser renders, that each of compat's findings is listed with its
// explanation and its witness.
func TestComparisonListsEveryFindingWithItsWitness(t *testing.T) {
	tb := newTab(t)
	const dir = "../testdata/fixture-breaking"
	origin := serve(t, "-catalogue", dir)
	c, err := schemas.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	type shown struct {
		Code, Explanation, Witness string
	}
	for _, pair := range [][2]string{{"1.1", "1.2"}, {"1.0", "1.2"}} {
		old, _ := c.Lookup("demo.sensor", pair[0])
		new, _ := c.Lookup("demo.sensor", pair[1])
		r, err := compat.Compare(old, new, compat.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Compatible() {
			t.Fatalf("%s-%s: the fixture's pair is compatible", pair[0], pair[1])
		}
		tb.do(t, chromedp.Navigate(origin+"/schemas/demo.sensor/compare/"+pair[0]+"-"+pair[1]+".html"))
		got := eval[[]shown](t, tb, `Array.from(document.querySelectorAll("li.finding")).map(li => ({
			Code: li.dataset.code,
			Explanation: li.querySelector(".explanation").innerText.trim(),
			Witness: (li.querySelector(".witness") || {innerText: ""}).innerText,
		}))`)
		if len(got) != len(r.Findings) {
			t.Errorf("%s-%s: %d findings shown, compat finds %d", pair[0], pair[1], len(got), len(r.Findings))
		}
		for _, f := range r.Findings {
			i := slices.IndexFunc(got, func(s shown) bool { return s.Code == f.Code && s.Explanation == f.Message })
			if i < 0 {
				t.Errorf("%s-%s: %s %q not shown", pair[0], pair[1], f.Code, f.Message)
				continue
			}
			var a, b bytes.Buffer
			if err := json.Compact(&a, []byte(got[i].Witness)); err != nil || json.Compact(&b, f.Witness) != nil || a.String() != b.String() {
				t.Errorf("%s-%s: %s: witness shown %q, want %s", pair[0], pair[1], f.Code, got[i].Witness, f.Witness)
			}
		}
		summary := eval[string](t, tb, `document.getElementById("summary").innerText`)
		if !strings.Contains(summary, "not compatible") || !strings.Contains(summary, "new major") {
			t.Errorf("%s-%s: the summary reads %q", pair[0], pair[1], summary)
		}
		tb.checkAccessible(t, "the comparison of "+pair[0]+" and "+pair[1])
		if pair[0] == "1.1" {
			tb.screenshot(t, "compare.png")
		}
	}
	tb.checkOrigin(t, origin)
}
