// Package pattern reads JSON Schema's patterns, ECMA-262 regular
// expressions, as Go's regexp: the generator compiles them into the
// decoders, and the compatibility checker compares them as automata.
package pattern

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// JSON Schema's pattern is an ECMA-262 regular expression, which Go's
// regexp (RE2) reads differently in places: \s, the dot, an empty class,
// a '[' inside a class, and escapes RE2 gives another meaning. ToRE2
// rewrites a pattern into the RE2 expression that matches exactly the
// same strings, read as JSON Schema 2020-12 recommends, with ECMA-262's
// u flag (a string is a sequence of code points, as Go's strings are),
// and refuses, saying why, whatever it cannot carry over exactly:
// backreferences and lookaround, which RE2 lacks, and escapes whose
// meaning is not the same. Both engines match anywhere in the string
// unless anchored, and ^ and $ (without the m flag) anchor at its ends.

// ecmaSpace is ECMA-262's \s: WhiteSpace and LineTerminator, wider than
// RE2's [\t\n\f\r ].
const ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ecmaNotSpace is ECMA-262's \S as the ranges of a class, for use inside
// one, where RE2 cannot negate a part: every code point but ecmaSpace's.
const ecmaNotSpace = `\x00-\x08\x0e-\x1f\x21-\x9f\x{a1}-\x{167f}\x{1681}-\x{1fff}\x{200b}-\x{2027}\x{202a}-\x{202e}\x{2030}-\x{205e}\x{2060}-\x{2fff}\x{3001}-\x{fefe}\x{ff00}-\x{10ffff}`

// ToRE2 returns the RE2 expression that matches exactly the strings the
// ECMA-262 pattern p matches, or why there is none.
func ToRE2(p string) (string, error) {
	t := translator{src: []rune(p)}
	if err := t.run(); err != nil {
		return "", err
	}
	re := t.out.String()
	if _, err := regexp.Compile(re); err != nil {
		return "", fmt.Errorf("the regexp of Go refuses it: %v", err)
	}
	return re, nil
}

type translator struct {
	src []rune
	i   int
	out strings.Builder
}

func (t *translator) peek(k int) rune {
	if t.i+k < len(t.src) {
		return t.src[t.i+k]
	}
	return -1
}

func (t *translator) run() error {
	for t.i < len(t.src) {
		c := t.src[t.i]
		switch c {
		case '\\':
			s, err := t.escape(false)
			if err != nil {
				return err
			}
			t.out.WriteString(s)
		case '.':
			t.i++
			t.out.WriteString(`[^\n\r\x{2028}\x{2029}]`)
		case '[':
			if err := t.class(); err != nil {
				return err
			}
		case '(':
			t.i++
			if t.peek(0) == '?' {
				switch {
				case t.peek(1) == ':':
					t.i += 2
					t.out.WriteString("(?:")
				case t.peek(1) == '=' || t.peek(1) == '!' || t.peek(1) == '<' && (t.peek(2) == '=' || t.peek(2) == '!'):
					return fmt.Errorf("lookaround, which Go's regexp (RE2) lacks")
				case t.peek(1) == '<':
					end := t.i + 2
					for end < len(t.src) && t.src[end] != '>' {
						end++
					}
					name := string(t.src[t.i+2 : min(end, len(t.src))])
					if end >= len(t.src) || !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(name) {
						return fmt.Errorf("a group name Go's regexp cannot carry: %q", name)
					}
					t.i = end + 1
					t.out.WriteString("(?P<" + name + ">")
				default:
					return fmt.Errorf("a group modifier (?%c", t.peek(1))
				}
			} else {
				t.out.WriteByte('(')
			}
		case '{':
			// A quantifier, which both read alike; anything else is an
			// error under the u flag.
			end := t.i + 1
			for end < len(t.src) && (t.src[end] >= '0' && t.src[end] <= '9' || t.src[end] == ',') {
				end++
			}
			q := string(t.src[t.i:min(end+1, len(t.src))])
			if !regexp.MustCompile(`^\{[0-9]+(,[0-9]*)?\}$`).MatchString(q) {
				return fmt.Errorf("a '{' that is not a quantifier")
			}
			t.out.WriteString(q)
			t.i = end + 1
		case '}':
			return fmt.Errorf("a lone '}'")
		case ']':
			return fmt.Errorf("a lone ']'")
		default:
			t.i++
			t.out.WriteRune(c)
		}
	}
	return nil
}

// escape reads the escape at t.i and returns its RE2 form; inClass says
// it is inside a class, where \b is a backspace and \S is written as
// ranges.
func (t *translator) escape(inClass bool) (string, error) {
	t.i++ // the backslash
	if t.i >= len(t.src) {
		return "", fmt.Errorf("a trailing backslash")
	}
	c := t.src[t.i]
	t.i++
	switch c {
	case 'd', 'w', 'D', 'W':
		// ASCII in both: [0-9] and [0-9A-Za-z_].
		return `\` + string(c), nil
	case 's':
		if inClass {
			return ecmaSpace, nil
		}
		return "[" + ecmaSpace + "]", nil
	case 'S':
		if inClass {
			return ecmaNotSpace, nil
		}
		return "[^" + ecmaSpace + "]", nil
	case 'b':
		if inClass {
			return `\x08`, nil
		}
		return `\b`, nil
	case 'B':
		if inClass {
			return "", fmt.Errorf(`\B inside a class`)
		}
		return `\B`, nil
	case 't', 'n', 'v', 'f', 'r':
		return `\` + string(c), nil
	case '0':
		if r := t.peek(0); r >= '0' && r <= '9' {
			return "", fmt.Errorf("an octal escape")
		}
		return `\x00`, nil
	case 'c':
		r := t.peek(0)
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", fmt.Errorf(`\c without a letter`)
		}
		t.i++
		return fmt.Sprintf(`\x{%x}`, r%32), nil
	case 'x':
		n, ok := t.hex(2)
		if !ok {
			return "", fmt.Errorf(`\x without two hex digits`)
		}
		return fmt.Sprintf(`\x{%x}`, n), nil
	case 'u':
		var r rune
		if t.peek(0) == '{' {
			end := t.i + 1
			for end < len(t.src) && t.src[end] != '}' {
				end++
			}
			n, err := strconv.ParseUint(string(t.src[t.i+1:min(end, len(t.src))]), 16, 32)
			if end >= len(t.src) || err != nil || n > unicode.MaxRune {
				return "", fmt.Errorf(`a \u{...} escape that is not a code point`)
			}
			t.i = end + 1
			r = rune(n)
		} else {
			n, ok := t.hex(4)
			if !ok {
				return "", fmt.Errorf(`\u without four hex digits`)
			}
			r = rune(n)
			if utf16.IsSurrogate(r) {
				// A pair stands for one code point under the u flag.
				if t.peek(0) != '\\' || t.peek(1) != 'u' {
					return "", fmt.Errorf("a lone surrogate")
				}
				t.i += 2
				lo, ok := t.hex(4)
				if !ok {
					return "", fmt.Errorf(`\u without four hex digits`)
				}
				if r = utf16.DecodeRune(r, rune(lo)); r == unicode.ReplacementChar {
					return "", fmt.Errorf("a lone surrogate")
				}
			}
		}
		if r >= 0xd800 && r <= 0xdfff {
			return "", fmt.Errorf("a lone surrogate")
		}
		return fmt.Sprintf(`\x{%x}`, r), nil
	case 'p', 'P':
		end := t.i
		if t.peek(0) == '{' {
			for end < len(t.src) && t.src[end] != '}' {
				end++
			}
		}
		name := ""
		if end > t.i && end < len(t.src) {
			name = string(t.src[t.i+1 : end])
		}
		// A general category by its short name means the same to both;
		// long names and scripts are written differently.
		if _, ok := unicode.Categories[name]; !ok || len(name) > 2 {
			return "", fmt.Errorf(`the property escape \%c{%s}, which Go's regexp does not read as ECMA-262 does`, c, name)
		}
		t.i = end + 1
		return `\` + string(c) + "{" + name + "}", nil
	case '1', '2', '3', '4', '5', '6', '7', '8', '9', 'k':
		return "", fmt.Errorf("a backreference, which Go's regexp (RE2) lacks")
	}
	if strings.ContainsRune(`^$\.*+?()[]{}|/-`, c) {
		return `\` + string(c), nil
	}
	return "", fmt.Errorf(`the escape \%c, an error in ECMA-262 with the u flag`, c)
}

// hex reads n hexadecimal digits.
func (t *translator) hex(n int) (int, bool) {
	if t.i+n > len(t.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(t.src[t.i:t.i+n]), 16, 32)
	if err != nil {
		return 0, false
	}
	t.i += n
	return int(v), true
}

// class translates a character class: its members one by one, a '['
// escaped (RE2 would read [[:alpha:]] as a named class), and the empty
// classes, [] that matches nothing and [^] that matches anything, which
// RE2 cannot write as such.
func (t *translator) class() error {
	t.i++ // '['
	negated := t.peek(0) == '^'
	if negated {
		t.i++
	}
	if t.peek(0) == ']' {
		t.i++
		if negated {
			t.out.WriteString(`[\x00-\x{10ffff}]`)
		} else {
			t.out.WriteString(`[^\x00-\x{10ffff}]`)
		}
		return nil
	}
	t.out.WriteByte('[')
	if negated {
		t.out.WriteByte('^')
	}
	for {
		if t.i >= len(t.src) {
			return fmt.Errorf("a class without its ']'")
		}
		c := t.src[t.i]
		switch c {
		case ']':
			t.i++
			t.out.WriteByte(']')
			return nil
		case '\\':
			s, err := t.escape(true)
			if err != nil {
				return err
			}
			t.out.WriteString(s)
		case '[':
			t.i++
			t.out.WriteString(`\[`)
		default:
			t.i++
			t.out.WriteRune(c)
		}
	}
}
