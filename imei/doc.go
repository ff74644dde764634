// Package imei checks International Mobile Equipment Identities as 3GPP
// TS 23.003 defines them: a 14-digit body (TAC and serial number) followed
// by a check digit computed with the Luhn algorithm (Annex B).
//
// An IMEI here is exactly 15 ASCII digits, nothing else: no spaces, no
// separators, no sign, no Unicode digits from other scripts. A 16-digit
// IMEISV is not an IMEI.
//
// Typical use, checking a value received from a device:
//
//	if err := imei.Check(s); err != nil {
//		return fmt.Errorf("/imei: %w", err) // e.g. "/imei: check digit is 8, want 7"
//	}
//
// and building one from a body:
//
//	body := "26053179311383"
//	d, err := imei.CheckDigit(body) // 7, nil
//	if err != nil {
//		return err
//	}
//	id := body + strconv.Itoa(d) // "260531793113837"
//
// Valid, Check and CheckDigit allocate nothing when their input is good, so
// they can run on every message. Errors are *Error values whose fields tell
// a caller which rule failed; their messages carry no "imei:" prefix, so the
// caller can put the field path in front.
package imei
