package msg

import "strings"

// Pointer returns the JSON Pointer (RFC 6901) of the member name of the
// object at the pointer base: base, "/", and name with each "~" written
// "~0" and each "/" "~1". Pointer("", "a/b") is "/a~1b", the pointer of
// the member "a/b" of a message; Pointer("/actor", "id") is "/actor/id".
// It is how every path of a Violation is made.
func Pointer(base, name string) string {
	return base + "/" + escapeToken(name)
}

// escapeToken returns name as a reference token of a JSON Pointer: "~"
// written "~0" and "/" written "~1".
func escapeToken(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return pointerEscaper.Replace(name)
}

// pointerEscaper is built once: a Replacer builds its tables on first use,
// which costs more than the escaping itself.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")
