// Package catalogue decodes messages of the catalogue's schemas when their
// kind is known only at run time: by their message_type, or by a schema
// name the caller gives. The typed packages device, vehicle, association
// and event are the way in when the kind is known at compile time.
//
//	m, err := catalogue.Decode(data)
//	switch m := m.(type) {
//	case *device.Device:
//		// ...
//	}
//
// Decode and DecodeAs apply exactly the rules of the typed packages: the
// message's schema, plus the catalogue's decisions (see the README).
package catalogue

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fleetkit/catalogue/association"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/event"
	"github.com/fleetkit/catalogue/internal/wire"
	"github.com/fleetkit/catalogue/schemas"
	"github.com/fleetkit/catalogue/vehicle"
)

// A Message is a decoded message of any of the catalogue's schemas: one of
// *device.Device, *vehicle.Vehicle, *association.Association and
// *event.Event.
type Message interface {
	// Validate reports whether the message, as it would be encoded, is one
	// its schema accepts, returning an *msg.Error if not.
	Validate() error
	// SchemaName returns the name of the message's schema.
	SchemaName() string
	// SchemaVersion returns the version of the message's schema.
	SchemaVersion() string
	// MarshalJSON encodes the message.
	MarshalJSON() ([]byte, error)
	// UnmarshalJSON decodes data into the message, exactly as its schema
	// and the catalogue's decisions say.
	UnmarshalJSON(data []byte) error
}

// ErrUnknownType is the error, wrapped, of decoding a message whose
// message_type is absent or names no schema of the catalogue. Its text
// lists the types known.
var ErrUnknownType = errors.New("unknown message type")

// kinds makes an empty message of each schema, by name and version.
var kinds = map[string]map[string]func() Message{
	device.Name:      {device.Version: func() Message { return new(device.Device) }},
	vehicle.Name:     {vehicle.Version: func() Message { return new(vehicle.Vehicle) }},
	association.Name: {association.Version: func() Message { return new(association.Association) }},
	event.Name:       {event.Version: func() Message { return new(event.Event) }},
}

// Types returns the message types Decode knows: the names of the
// catalogue's schemas, sorted.
func Types() []string {
	var names []string
	for _, s := range schemas.All() {
		if len(names) == 0 || names[len(names)-1] != s.Name {
			names = append(names, s.Name)
		}
	}
	return names
}

// New returns an empty message of the named schema at version, or at its
// latest version if version is "". It returns an error wrapping
// schemas.ErrUnknown if the catalogue has no such schema.
func New(name, version string) (Message, error) {
	if version == "" {
		versions, err := schemas.Versions(name)
		if err != nil {
			return nil, err
		}
		version = versions[len(versions)-1]
	}
	if mk, ok := kinds[name][version]; ok {
		return mk(), nil
	}
	if _, err := schemas.Lookup(name, version); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w %q version %q: no Go type is generated for it", schemas.ErrUnknown, name, version)
}

// DecodeAs decodes data as a message of the named schema at version, or
// at its latest version if version is "". The message is returned even
// when it breaks its schema, with an *msg.Error listing the violations;
// an unknown schema gives an error wrapping schemas.ErrUnknown and no
// message.
func DecodeAs(name, version string, data []byte) (Message, error) {
	m, err := New(name, version)
	if err != nil {
		return nil, err
	}
	return m, m.UnmarshalJSON(data)
}

// Decode decodes data as a message of the schema its message_type names,
// at that schema's latest version (the message carries its family, not
// its version). A document that is not an object, or is not JSON at all,
// gives an *msg.Error; an absent, null or unknown message_type gives an
// error wrapping ErrUnknownType. Otherwise it is DecodeAs.
func Decode(data []byte) (Message, error) {
	typ, err := messageType(data)
	if err != nil {
		return nil, err
	}
	if _, ok := kinds[typ]; !ok {
		return nil, unknownType(" " + strconv.Quote(typ))
	}
	return DecodeAs(typ, "", data)
}

// messageType reads the top-level message_type of a message, reading no
// further than it. It returns an error wrapping ErrUnknownType, listing
// the known types, if there is none or it is not a string, and an
// *msg.Error if the document is malformed or not an object.
func messageType(data []byte) (string, error) {
	var d wire.Decoder
	d.Reset(data)
	if !d.Object("", "") {
		d.End()
		return "", d.Err()
	}
	for i := 0; d.More("", "", '}', i); i++ {
		key := d.Key("", "")
		if d.Failed() {
			break
		}
		if string(key) == "message_type" {
			if d.Null() {
				return "", unknownType(": message_type is null")
			}
			if s, ok := d.Bytes("", "/message_type"); ok {
				return string(s), nil
			}
			if d.Failed() {
				return "", d.Err()
			}
			return "", unknownType(": message_type is " + d.Last() + ", not a string")
		}
		d.Skip("", "")
	}
	if d.Failed() {
		return "", d.Err()
	}
	return "", unknownType(": the message has no message_type")
}

// unknownType returns an error wrapping ErrUnknownType, its text followed
// by what and the list of the known types.
func unknownType(what string) error {
	return fmt.Errorf("%w%s (known types: %s)", ErrUnknownType, what, strings.Join(Types(), ", "))
}
