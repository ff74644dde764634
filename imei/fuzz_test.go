package imei_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/fleetkit/catalogue/imei"
)

// FuzzCheckDigit derives a 14-digit body from the input and checks that the
// body plus its check digit is valid and that every single-digit change to
// that IMEI is caught, which is what the Luhn check digit is for.
func FuzzCheckDigit(f *testing.F) {
	f.Add(annexBBody)
	f.Add("49015420323751")
	f.Add("00000000000000")
	f.Add("99999999999999")
	f.Add("the quick brown fox")
	f.Add("")
	f.Add("2605317931138٣")
	f.Fuzz(func(t *testing.T, in string) {
		// On the raw input CheckDigit must either succeed on exactly 14
		// ASCII digits or say why not.
		if d, err := imei.CheckDigit(in); err == nil {
			if !imei.Valid(in + strconv.Itoa(d)) {
				t.Fatalf("CheckDigit(%q) = %d, but %q is not valid", in, d, in+strconv.Itoa(d))
			}
		} else {
			var e *imei.Error
			if !errors.As(err, &e) || d != -1 {
				t.Fatalf("CheckDigit(%q) = %d, %v; want -1 and an *imei.Error", in, d, err)
			}
		}

		if len(in) < 14 {
			t.Skip("too short to derive a body")
		}
		body := make([]byte, 14)
		for i := range body {
			body[i] = '0' + in[i]%10
		}
		d, err := imei.CheckDigit(string(body))
		if err != nil {
			t.Fatalf("CheckDigit(%q): %v", body, err)
		}
		if d < 0 || d > 9 {
			t.Fatalf("CheckDigit(%q) = %d, not a digit", body, d)
		}
		id := append(body, byte('0'+d))
		if !imei.Valid(string(id)) {
			t.Fatalf("%q (body plus its check digit) is not valid", id)
		}
		for i := range id {
			orig := id[i]
			for c := byte('0'); c <= '9'; c++ {
				if c == orig {
					continue
				}
				id[i] = c
				s := string(id)
				if imei.Valid(s) {
					t.Fatalf("%q differs from a valid IMEI in digit %d only, but is valid", s, i)
				}
				var e *imei.Error
				if err := imei.Check(s); !errors.As(err, &e) || e.Kind != imei.KindCheckDigit {
					t.Fatalf("Check(%q) = %v, want a check digit error", s, err)
				}
			}
			id[i] = orig
		}
	})
}

// FuzzValid checks that Valid never panics and agrees with the reference
// and with Check, and that Check's error is consistent with its input.
func FuzzValid(f *testing.F) {
	for _, tc := range checkCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := imei.Valid(s)
		if ref := reference(s); v != ref {
			t.Fatalf("Valid(%q) = %v, reference says %v", s, v, ref)
		}
		err := imei.Check(s)
		if (err == nil) != v {
			t.Fatalf("Valid(%q) = %v, but Check says %v", s, v, err)
		}
		if err == nil {
			return
		}
		var e *imei.Error
		if !errors.As(err, &e) {
			t.Fatalf("Check(%q) = %T, want *imei.Error", s, err)
		}
		switch e.Kind {
		case imei.KindLength:
			if len(s) == 15 {
				t.Fatalf("Check(%q): length error on 15 bytes", s)
			}
		case imei.KindDigit:
			if len(s) != 15 || e.Pos < 0 || e.Pos >= 15 || s[e.Pos] >= '0' && s[e.Pos] <= '9' {
				t.Fatalf("Check(%q): non-digit at %d is wrong", s, e.Pos)
			}
			for i := range e.Pos {
				if s[i] < '0' || s[i] > '9' {
					t.Fatalf("Check(%q): reported position %d, but %d comes first", s, e.Pos, i)
				}
			}
		case imei.KindCheckDigit:
			if e.Got != int(s[14]-'0') || e.Want == e.Got || !imei.Valid(s[:14]+strconv.Itoa(e.Want)) {
				t.Fatalf("Check(%q): check digit error got %d want %d is wrong", s, e.Got, e.Want)
			}
		default:
			t.Fatalf("Check(%q): unknown kind %v", s, e.Kind)
		}
		if e.Error() == "" {
			t.Fatalf("Check(%q): empty message", s)
		}
	})
}
