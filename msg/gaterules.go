package msg

// The rules a gate applies beside the schema's (decision 16): a message
// can follow its schema and still not be forwarded.
const (
	// RuleDuplicateID: another message, with another body, was already
	// forwarded under the message's id.
	RuleDuplicateID Rule = "duplicate_id"
	// RuleTooLarge: the message's copy, with the headers a gate adds, is
	// larger than the broker stores.
	RuleTooLarge Rule = "too_large"
)
