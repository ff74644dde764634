package msg

import (
	"encoding/json"
	"fmt"
)

// Nullable is the value of an optional member that may also be null, where
// the schema gives absent and null different meanings: it is absent, null,
// or holds a value. The zero Nullable is absent.
//
// In a struct of the caller's own, encoding/json keeps the three apart
// when the field is tagged omitzero: absent leaves the member out (IsZero
// reports true), null encodes as null, and a value as the value encodes;
// decoding null gives null, and any other JSON the value it decodes to.
//
//	type Patch struct {
//		Model msg.Nullable[string] `json:"model,omitzero"`
//	}
//
// Members whose default is null, where absent and null mean the same, are
// pointers instead; members that may be absent but not null are pointers,
// slices or maps, nil when absent.
type Nullable[T any] struct {
	value T
	state uint8
}

const (
	absent uint8 = iota
	null
	present
)

// Of returns a Nullable holding v.
func Of[T any](v T) Nullable[T] { return Nullable[T]{value: v, state: present} }

// Null returns a Nullable that is null.
func Null[T any]() Nullable[T] { return Nullable[T]{state: null} }

// Get returns the value and true if n holds one, or the zero value and
// false if n is absent or null.
func (n Nullable[T]) Get() (T, bool) { return n.value, n.state == present }

// Value returns the value n holds, or the zero value if it is absent or null.
func (n Nullable[T]) Value() T { return n.value }

// IsNull reports whether n is null.
func (n Nullable[T]) IsNull() bool { return n.state == null }

// IsAbsent reports whether n is absent.
func (n Nullable[T]) IsAbsent() bool { return n.state == absent }

// IsPresent reports whether n holds a value.
func (n Nullable[T]) IsPresent() bool { return n.state == present }

// IsZero reports whether n is absent, so that encoding/json leaves out a
// field tagged omitzero that holds an absent Nullable.
func (n Nullable[T]) IsZero() bool { return n.state == absent }

// MarshalJSON encodes null as null and a value as json.Marshal encodes it.
// An absent Nullable has no JSON of its own: it encodes as null too,
// unless the field is tagged omitzero, which leaves it out.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.state != present {
		return []byte("null"), nil
	}
	return json.Marshal(n.value)
}

// UnmarshalJSON decodes null as null, and any other value as
// json.Unmarshal decodes it into a T, which n then holds. A member that is
// absent is never decoded: the Nullable stays as it was, absent when zero.
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*n = Of(v)
	return nil
}

// String returns "absent", "null", or the value as fmt's %v prints it, so
// that printing a Nullable shows what it holds, not its internals.
func (n Nullable[T]) String() string {
	switch n.state {
	case absent:
		return "absent"
	case null:
		return "null"
	}
	return fmt.Sprint(n.value)
}
