// Package rawobject lets the decoders of this module make a msg.Object
// from text they have already checked, in the pass that read it, without
// package msg exporting a way to do so to everyone: an Object promises
// that its text was checked, and only this module may keep that promise
// for it.
package rawobject

// newObject is msg's constructor, a func(text []byte) msg.Object: held as
// an any, since this package cannot import msg, which imports it.
var newObject any

// Register gives New the constructor of package msg, which calls it once,
// when it is initialised, so that any package that can name a msg.Object
// finds it registered.
func Register[O any](f func(text []byte) O) { newObject = f }

// New returns the O, a msg.Object, that holds text, which must be one
// JSON object checked as msg.ParseObject checks it, in the canonical form
// jsontext.AppendCanonical writes; the Object keeps text. It returns the
// Object as a value, so that making one costs no allocation.
func New[O any](text []byte) O { return newObject.(func([]byte) O)(text) }
