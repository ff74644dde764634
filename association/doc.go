// Package association holds the message type of the catalogue's
// core.association schema, version 1.0, generated from
// schemas/core.association-1.0.json: an association of a device with a
// driver, a vehicle, a battery or tags.
//
// Tags tells null from absent, as the schema does: an absent tags member
// decodes to its default, an empty, non-nil slice, and a null one to nil.
package association
