package row_test

import (
	"fmt"
	"log"

	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// Encodes a bucket key as a BinaryRow, the bytes Java writes, decodes it
// back, and computes its bucket the way every Paimon writer does (Murmur3
// of the row bytes, modulo the bucket count).
func Example() {
	fields := []types.DataType{types.Int(), types.String()}
	key, err := row.Encode(fields, []any{int32(7), "Oslo"})
	if err != nil {
		log.Fatal(err)
	}
	back, err := row.Decode(fields, key)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%x\n", key.Bytes())
	fmt.Println(back, row.Bucket(key, 4), row.Bucket(key, 16))
	// Output:
	// 000000000000000007000000000000004f736c6f00000084
	// [7 Oslo] 1 13
}
