package hashindex_test

import (
	"fmt"
	"log"

	"github.com/paimon-go/paimon/hashindex"
)

// Dynamic buckets (bucket = -1): new key hashes fill a bucket up to
// dynamic-bucket.target-row-num, then the next bucket opens; a key seen
// before keeps its bucket (Java PartitionIndex.assign).
func Example() {
	p := hashindex.NewPartition(2, -1) // two keys per bucket, no bucket bound
	for _, h := range []int32{11, 22, 33, 11, 44, 55} {
		b, err := p.Assign(h)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(h, "->", b, " ")
	}
	fmt.Println()
	// Output:
	// 11->0 22->0 33->1 11->0 44->1 55->2
}
