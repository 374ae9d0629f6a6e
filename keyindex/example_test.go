package keyindex_test

import (
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/keyindex"
	"github.com/paimon-go/paimon/types"
)

// Cross-partition upserts route each key to where it already lives: a key
// seen before keeps its partition and bucket, a new key gets a bucket of
// its partition with room (here 2 keys per bucket), as Java's
// GlobalIndexAssigner does.
func Example() {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{10, 11, 12, 10}, nil)
	ids := b.NewArray()
	b.Release()
	defer ids.Release()
	parts := []string{"dt=01", "dt=01", "dt=01", "dt=02"} // the partition of each row

	x := keyindex.New(2)
	vals := make([]any, 1)
	for i := range ids.Len() {
		key, err := keyindex.Key([]arrow.Array{ids}, []types.DataType{types.BigInt()}, i, vals)
		if err != nil {
			log.Fatal(err)
		}
		if l, ok := x.Get(key); ok {
			fmt.Printf("id %d: already in %s bucket %d\n", ids.(*array.Int64).Value(i), x.Partition(l.Part), l.Bucket)
			continue
		}
		p := x.Part([]byte(parts[i]))
		l := keyindex.Loc{Part: p, Bucket: x.Assign(p)}
		x.Put(key, l)
		fmt.Printf("id %d: new in %s bucket %d\n", ids.(*array.Int64).Value(i), x.Partition(l.Part), l.Bucket)
	}
	fmt.Println(x.Len(), "keys")
	// Output:
	// id 10: new in dt=01 bucket 0
	// id 11: new in dt=01 bucket 0
	// id 12: new in dt=01 bucket 1
	// id 10: already in dt=01 bucket 0
	// 3 keys
}
