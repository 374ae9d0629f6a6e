package deletionvector_test

import (
	"fmt"
	"log"
	"slices"

	"github.com/paimon-go/paimon/deletionvector"
)

// Marks rows 3 and 7 of a data file deleted, encodes the vector as Java
// writes it into a deletion-vector index file, and reads it back: readers
// skip those row positions.
func Example() {
	dv := deletionvector.New(false) // a 32-bit RoaringBitmap, Java's default
	for _, pos := range []int64{7, 3} {
		if err := dv.Delete(pos); err != nil {
			log.Fatal(err)
		}
	}
	blob, err := deletionvector.Encode(dv)
	if err != nil {
		log.Fatal(err)
	}
	back, err := deletionvector.DecodeBlob(blob)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.Cardinality(), slices.Collect(back.All()), back.IsDeleted(3), back.IsDeleted(4))
	// Output:
	// 2 [3 7] true false
}
