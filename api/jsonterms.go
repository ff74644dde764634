package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/internal/jsontext"
	"github.com/fleetkit/catalogue/msg"
)

// inJSONTerms says why the JSON text data, which what names ("the
// request", "it"), could not be decoded, in JSON's terms: encoding/json's
// own text names Go's types and this package's structs ("cannot
// unmarshal array into Go value of type api.request"), which mean nothing
// to a client in another language. A value of the wrong type is named by
// its JSON Pointer, with the type it is and the type wanted; text that is
// not JSON, by the byte where it stops being JSON.
func inJSONTerms(what string, data []byte, err error) string {
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		if off, reason := jsontext.Check(data); reason != "" {
			return fmt.Sprintf("%s is not JSON: at byte %d: %s", what, off, reason)
		}
	}
	te, ok := errors.AsType[*json.UnmarshalTypeError](err)
	if !ok || te.Type == nil {
		return err.Error()
	}
	v, derr := decodeJSON(data)
	if derr != nil {
		return err.Error() // not JSON after all: encoding/json said so first
	}
	want := jsonTypeOf(te.Type)
	at := ""
	if te.Field != "" {
		for name := range strings.SplitSeq(te.Field, ".") {
			o, ok := v.(map[string]any)
			if !ok {
				break
			}
			at, v = msg.Pointer(at, name), o[name]
		}
	}
	// A wrong item of an array: the pointer names the item.
	if items, ok := v.([]any); ok && want != "an array" {
		for i, item := range items {
			if jsonTypeOfValue(item) != want {
				at, v = at+"/"+strconv.Itoa(i), item
				break
			}
		}
	}
	if at != "" {
		what = strconv.Quote(at)
	}
	return fmt.Sprintf("%s is %s, want %s", what, jsonTypeOfValue(v), want)
}

// jsonTypeOf names the JSON type that encoding/json decodes into t.
func jsonTypeOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonTypeOf(t.Elem())
	default:
		return "a number"
	}
}

// jsonTypeOfValue names the JSON type of a value decodeJSON returns.
func jsonTypeOfValue(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "true or false"
	case nil:
		return "null"
	default:
		return "a number"
	}
}
