package webtest

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// lowContrastJS lists the elements whose own text has a contrast ratio
// below 4.5:1 (WCAG 2, level AA) with the background it is drawn on, as
// the browser computes both.
const lowContrastJS = `(() => {
	const rgb = s => { const m = s.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(",").map(parseFloat); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
	const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
	const bg = el => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c && c.a > 0) return c; } return {r: 255, g: 255, b: 255, a: 1}; };
	const bad = [];
	document.querySelectorAll("body *").forEach(el => {
		if (!Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())) return;
		const st = getComputedStyle(el);
		if (st.display === "none" || st.visibility === "hidden") return;
		const l1 = lum(rgb(st.color)), l2 = lum(bg(el));
		const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
		if (ratio < 4.5) bad.push(el.tagName + " " + JSON.stringify(el.textContent.trim().slice(0, 40)) + ": " + ratio.toFixed(2));
	});
	return bad;
})()`

// structureJS lists what breaks basic accessibility practice in the
// page's structure: a document without a language, a table without a
// caption, a header cell without a scope, a form field without a label.
const structureJS = `(() => {
	const bad = [];
	if (!document.documentElement.lang) bad.push("html without lang");
	document.querySelectorAll("table").forEach(t => { if (!t.caption || !t.caption.innerText.trim()) bad.push("table #" + t.id + " without a caption"); });
	document.querySelectorAll("th").forEach(th => { if (!["col", "row"].includes(th.scope)) bad.push("th " + JSON.stringify(th.innerText) + " without a scope"); });
	document.querySelectorAll("textarea, input, select").forEach(f => { if (!f.labels || f.labels.length === 0) bad.push(f.tagName + " #" + f.id + " without a label"); });
	if (!document.querySelector('meta[name="viewport"]')) bad.push("no viewport meta");
	return bad;
})()`

// checkAccessible checks the page the tab shows for contrast and
// structure, as the browser renders it.
func (tb *tab) checkAccessible(t *testing.T, what string) {
	t.Helper()
	for _, bad := range eval[[]string](t, tb, lowContrastJS) {
		t.Errorf("%s: contrast below 4.5:1: %s", what, bad)
	}
	for _, bad := range eval[[]string](t, tb, structureJS) {
		t.Errorf("%s: %s", what, bad)
	}
}

// checkPrint checks that the page, printed, leaves out its navigation
// and its form, and keeps its tables whole rather than scrolled.
func (tb *tab) checkPrint(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
		t.Fatal(err)
	}
	defer chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
	hidden := eval[[]string](t, tb, `["header", "#try", "footer"].filter(s => document.querySelector(s) && getComputedStyle(document.querySelector(s)).display !== "none")`)
	if len(hidden) > 0 {
		t.Errorf("printed, the page still shows %v", hidden)
	}
	if o := eval[string](t, tb, `getComputedStyle(document.querySelector(".scroll")).overflowX`); o != "visible" {
		t.Errorf("printed, the table scrolls (overflow-x %s)", o)
	}
}
