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

// Judging returns b, Borrowing, but judging the messages it reads
// without building them, for a caller that needs only a message's
// verdict and identity, as a gate that forwards it byte for byte does:
// a message is read by its kind's JudgeIdentity, and DecodeIdentity,
// DecodeKind, DecodeAs and Decode return no message for it, only its
// identity (for the two that return one) and the error Borrowing's would
// give. That is so of a message whose schema a header names, or
// DecodeKind is given, and of one chosen by its message_type when the
// table finds its kind without decoding it (msg.Kinds's CanFindKind, as
// catalogue.Kinds does), with the table's KindOf, which gives Decode's
// error when it chooses none. With another table, a message chosen by
// its message_type is built, as Borrowing builds it.
func (b Binding) Judging() Binding {
	b.borrow, b.judge = true, true
	return b
}

// judged judges body as a message of kind k, for a Judging binding whose
// kind can (JudgeIdentity), into its identity *id (not returned, so that
// it is not copied on the way), and checks the headers h, read into hs
// with the violations bad, against it (see check), telling h, if it is a
// WrittenHeader, whether they are those Write sets: there is no message.
func (b Binding) judged(h Header, k *msg.Kind, body []byte, hs *headers, bad []*msg.Violation, id *msg.Identity) error {
	var err error
	*id, err = k.JudgeIdentity(body)
	wh, noting := h.(WrittenHeader)
	var written uint8
	if noting {
		written = writtenOf(hs, id)
	}
	_, err = b.check(nil, err, hs, bad, id, written)
	if noting {
		wh.SetWritten(err == nil && written == 1<<nHeaders-1)
	}
	return err
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
