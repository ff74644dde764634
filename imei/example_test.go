package imei_test

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/fleetkit/catalogue/imei"
)

func ExampleValid() {
	fmt.Println(imei.Valid("260531793113837"))
	fmt.Println(imei.Valid("260531793113838"))  // wrong check digit
	fmt.Println(imei.Valid("2605317931138301")) // IMEISV, 16 digits
	fmt.Println(imei.Valid(""))
	// Output:
	// true
	// false
	// false
	// false
}

func ExampleCheck() {
	for _, s := range []string{"260531793113837", "26053179311383", "260x31793113837", "260531793113838"} {
		err := imei.Check(s)
		fmt.Printf("%q: %v\n", s, err)

		var e *imei.Error
		if errors.As(err, &e) && e.Kind == imei.KindCheckDigit {
			fmt.Printf("  the first 14 digits call for %d\n", e.Want)
		}
	}
	// Output:
	// "260531793113837": <nil>
	// "26053179311383": length is 14, want 15
	// "260x31793113837": non-digit 'x' at position 3
	// "260531793113838": check digit is 8, want 7
	//   the first 14 digits call for 7
}

func ExampleCheckDigit() {
	body := "26053179311383"
	d, err := imei.CheckDigit(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	id := body + strconv.Itoa(d)
	fmt.Println(d, id, imei.Valid(id))
	// Output:
	// 7 260531793113837 true
}
