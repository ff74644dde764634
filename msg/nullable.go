package msg

// Nullable is the value of an optional member that may also be null, where
// the schema gives absent and null different meanings: it is absent, null,
// or holds a value. The zero Nullable is absent.
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
