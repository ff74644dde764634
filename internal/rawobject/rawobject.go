// Package rawobject lets the decoders of this module make an
// object.Object from text they have already checked, in the pass that
// read it, without package object exporting a way to do so to everyone:
// an Object promises that its text was checked, and only this module may
// keep that promise for it.
//
// It is a package of its own, not a function of package wire, because
// package object cannot import wire, which imports object to name the
// Object it returns; nor can it name object.Object, for the same reason.
// Without a hook, object.Object would have to be a type defined over an
// internal one (type Object rawtext.Text), which a decoder could convert
// to; but then Object's public declaration, in go doc and pkgsite, would
// name a type no user can see, and the hook is four lines.
package rawobject

// newObject is object's constructor, a func(text []byte) object.Object:
// held as an any, since this package cannot import object, which imports
// it.
var newObject any

// Register gives New the constructor of package object, which calls it
// once, when it is initialised, so that any package that can name an
// object.Object finds it registered.
func Register[O any](f func(text []byte) O) { newObject = f }

// New returns the O, an object.Object, that holds text, which must be one
// JSON object checked as object.Parse checks it, in the canonical form
// jsontext.AppendCanonical writes; the Object keeps text. It returns the
// Object as a value, so that making one costs no allocation.
func New[O any](text []byte) O { return newObject.(func([]byte) O)(text) }
