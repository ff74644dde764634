// Package object holds Object, the type of a message's free-form members,
// such as a vehicle's meta and specification: a JSON object whose members
// are free (any name, any JSON value, null included), kept exactly as it
// was written, every digit of a number and the members' order included.
//
// An Object is checked when it is made, by Parse, by New or by decoding a
// message, and cannot hold anything else after:
//
//	meta, err := object.Parse([]byte(`{"colour":"red","fleet_number":null}`))
//	if err != nil {
//		return err // a *msg.Violation: what is wrong, and where
//	}
//	v.Meta = &meta
//	for name, value := range v.Meta.All() {
//		fmt.Println(name, string(value)) // colour "red", fleet_number null
//	}
//
// # Why a package of its own
//
// Package msg, the vocabulary that every message type and binding shares
// (violations, rules, kinds, verdicts, pointers), imports nothing from
// this module's internal packages; an Object needs them. Checking its text
// takes the strict JSON scanner the decoders use, so that an Object accepts
// exactly what a message's decoding accepts. And a decoder, which checks a
// free object's text in the pass that reads the message, makes the Object
// of that text without checking it again, through the internal package
// rawobject: an Object promises that its text was checked, so no
// exported function makes one of unchecked text, and only this module's
// decoders may keep that promise for it. Object registers its constructor
// there when this package is initialised, which is before any decoder can
// run, since the decoders import this package to name the type.
package object
