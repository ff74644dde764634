// Package event holds the message type of the catalogue's example.event
// schema, version 1.0, generated from schemas/example.event-1.0.json: an
// event recording that something was created, updated or deleted.
//
// Unlike the core.* messages it has no message_type member; decode it with
// json.Unmarshal into an Event, or with catalogue.DecodeAs.
package event
