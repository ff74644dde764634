package kafka

import (
	"encoding/binary"
	"fmt"
)

// Magic is the first byte of a value framed in the schema-registry wire
// format: the byte 0x00, the schema's registry id in 4 bytes big-endian,
// then the message. No JSON text starts with it, so a consumer tells the
// two forms of a value apart by its first byte.
const Magic = 0x00

// FrameSize is the length of the frame before a framed message.
const FrameSize = 5

// AppendFrame appends to dst the frame of a message of the schema
// version whose registry id is id (schemas.Schema.RegistryID); the
// message follows it.
func AppendFrame(dst []byte, id int32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, Magic), uint32(id))
}

// Unframe splits a record's value: a framed value gives its registry id,
// the message after the frame and framed true; any other value is the
// message itself, with framed false. A value that starts with Magic but
// is shorter than the frame, or whose id is not positive, is an error.
func Unframe(value []byte) (id int32, message []byte, framed bool, err error) {
	if len(value) == 0 || value[0] != Magic {
		return 0, value, false, nil
	}
	if len(value) < FrameSize {
		return 0, nil, true, fmt.Errorf("the value starts with the registry framing's magic byte 0x00 but has %d bytes, fewer than its %d", len(value), FrameSize)
	}
	id = int32(binary.BigEndian.Uint32(value[1:FrameSize]))
	if id <= 0 {
		return id, nil, true, fmt.Errorf("the value's framing names registry id %d: ids are positive", id)
	}
	return id, value[FrameSize:], true, nil
}
