// Package reading holds the message type of the fixture schema
// demo.reading, generated from testdata/fixture-vocabulary, a schema
// that uses every keyword the generator supports.
//
// Like the published message packages it is used through New, Unset,
// Validate and AppendJSON to produce, and Parse to consume: Parse returns
// an *msg.Error listing every violation, and no message, exactly when the
// schema rejects the message.
package reading
