// Package jsonobject reads the members of a JSON object in the order they
// are written, which decoding into a map loses. The generator lists a
// schema's members in that order, and the pages and tests that show or
// rewrite an object keep it.
package jsonobject

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Member is one member of a JSON object: its name and its value's text.
type Member struct {
	Name  string
	Value json.RawMessage
}

// ErrNotObject is returned by Members for a JSON value that is not an
// object.
var ErrNotObject = errors.New("not a JSON object")

// Members returns the members of the JSON object at the start of data, in
// the order written, a name written twice as often as it is written. It
// returns ErrNotObject for another JSON value, and the decoder's error for
// text that is not JSON.
func Members(data []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, ErrNotObject
	}
	var ms []Member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		ms = append(ms, Member{tok.(string), v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err // the object is not closed
	}
	return ms, nil
}
