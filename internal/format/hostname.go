package format

import (
	"strings"
	"unicode"

	"golang.org/x/net/idna"
)

// CheckHostname checks a host name as the official test suite's
// optional/format/hostname.json defines format hostname: RFC 1123 labels
// of letters, digits and hyphens (CheckHostnameASCII), no trailing dot,
// and every A-label (a label beginning "xn--") the Punycode of a U-label
// that IDNA2008 allows (RFC 5890, 5891, 5892): valid Punycode, code points
// PVALID or allowed in their context, no leading combining mark, no "--"
// in the third and fourth places.
//
// golang.org/x/net/idna decodes the A-labels and applies the rules it
// implements (UTS 46's registration profile, without mapping, with the
// CONTEXTJ rules of the joiners, the hyphen rules and the bidi rule);
// the rest of RFC 5892 that it leaves out, its exceptions and the
// CONTEXTO rules, is checked here.
func CheckHostname(s string) string {
	if why := CheckHostnameASCII(s); why != "" {
		return why
	}
	for rest, more := s, true; more; {
		var label string
		label, rest, more = strings.Cut(rest, ".")
		if len(label) < 4 || !strings.EqualFold(label[:4], "xn--") {
			continue
		}
		u, err := aLabels.ToUnicode(label)
		if err != nil {
			return "not a valid A-label (IDNA2008)"
		}
		if why := checkULabel(u); why != "" {
			return why
		}
	}
	return ""
}

// aLabels decodes an A-label and checks its U-label for registration.
var aLabels = idna.New(idna.ValidateForRegistration(), idna.BidiRule(), idna.CheckJoiners(true), idna.CheckHyphens(true))

// checkULabel checks what RFC 5892 asks of a U-label beyond what aLabels
// checks: the code points its exceptions (section 2.6) disallow, and the
// contextual rules of appendix A.3 to A.9.
func checkULabel(u string) string {
	runes := []rune(u)
	if len(runes) > 0 && unicode.Is(unicode.M, runes[0]) {
		return "a label must not begin with a combining mark"
	}
	at := func(i int) rune {
		if i < 0 || i >= len(runes) {
			return -1
		}
		return runes[i]
	}
	has := func(lo, hi rune) bool {
		for _, r := range runes {
			if r >= lo && r <= hi {
				return true
			}
		}
		return false
	}
	for i, r := range runes {
		switch {
		case r == 0x0640 || r == 0x07FA || r == 0x302E || r == 0x302F || r >= 0x3031 && r <= 0x3035 || r == 0x303B:
			return "a code point IDNA2008 disallows (RFC 5892, section 2.6)"
		case r == 0x00B7: // MIDDLE DOT, only between two l
			if at(i-1) != 'l' || at(i+1) != 'l' {
				return "a middle dot must stand between two l (RFC 5892, appendix A.3)"
			}
		case r == 0x0375: // GREEK LOWER NUMERAL SIGN (KERAIA)
			if n := at(i + 1); n < 0 || !unicode.Is(unicode.Greek, n) {
				return "a Greek keraia must precede a Greek letter (RFC 5892, appendix A.4)"
			}
		case r == 0x05F3 || r == 0x05F4: // HEBREW PUNCTUATION GERESH, GERSHAYIM
			if p := at(i - 1); p < 0 || !unicode.Is(unicode.Hebrew, p) {
				return "a Hebrew geresh or gershayim must follow a Hebrew letter (RFC 5892, appendices A.5 and A.6)"
			}
		case r == 0x30FB: // KATAKANA MIDDLE DOT
			ok := false
			for _, o := range runes {
				if o != 0x30FB && (unicode.Is(unicode.Hiragana, o) || unicode.Is(unicode.Katakana, o) || unicode.Is(unicode.Han, o)) {
					ok = true
					break
				}
			}
			if !ok {
				return "a katakana middle dot needs Hiragana, Katakana or Han in its label (RFC 5892, appendix A.7)"
			}
		case r >= 0x0660 && r <= 0x0669:
			if has(0x06F0, 0x06F9) {
				return "Arabic-Indic digits must not mix with extended ones (RFC 5892, appendix A.8)"
			}
		case r >= 0x06F0 && r <= 0x06F9:
			if has(0x0660, 0x0669) {
				return "extended Arabic-Indic digits must not mix with Arabic-Indic ones (RFC 5892, appendix A.9)"
			}
		}
	}
	return ""
}
