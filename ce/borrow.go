package ce

import "github.com/fleetkit/catalogue/msg"

// Borrowing returns b, but decoding messages that borrow from the body
// instead of copying what they keep (see msg.Kind's DecodeBorrowed), for
// a caller that owns the body, as a gate does a delivery's: the caller
// must not modify the body, nor reuse its memory, while the message, its
// identity or anything taken from them is in use. The verdict is the
// same.
//
//	m, id, err := ce.NATS.Borrowing().DecodeIdentity(catalogue.Kinds, h, body)
func (b Binding) Borrowing() Binding {
	b.borrow = true
	return b
}

// decode decodes body as a message of kind k, borrowing if b does and k
// can.
func (b Binding) decode(k *msg.Kind, body []byte) (msg.Message, error) {
	if b.borrow && k.DecodeBorrowed != nil {
		return k.DecodeBorrowed(body)
	}
	m := k.New()
	return m, m.UnmarshalJSON(body)
}

// decodeAny decodes body by its message_type, with kinds, borrowing if b
// does.
func (b Binding) decodeAny(kinds *msg.Kinds, body []byte) (msg.Message, error) {
	if b.borrow {
		return kinds.DecodeBorrowed(body)
	}
	return kinds.Decode(body)
}
