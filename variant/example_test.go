package variant_test

import (
	"fmt"

	"github.com/paimon-go/paimon/variant"
)

// ToJSON prints a VARIANT value as Java Paimon does: here the object
// {"a": 1, "b": "hi"}, encoded as a value buffer and a metadata dictionary
// holding its keys.
func ExampleToJSON() {
	// Metadata: version 1, one-byte offsets, 2 keys at offsets 0, 1, 2.
	metadata := []byte{0x01, 0x02, 0x00, 0x01, 0x02, 'a', 'b'}
	// Value: an object of 2 fields (ids 0 and 1, values at offsets 0 and
	// 2): an INT8 1, then a short string "hi".
	value := []byte{0x02, 0x02, 0x00, 0x01, 0x00, 0x02, 0x05, 0x0C, 0x01, 0x09, 'h', 'i'}
	s, err := variant.ToJSON(value, metadata)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)
	_, err = variant.ToJSON(value[:3], metadata)
	fmt.Println(err != nil)
	// Output:
	// {"a":1,"b":"hi"}
	// true
}
