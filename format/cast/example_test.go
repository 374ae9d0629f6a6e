package cast_test

import (
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/format/cast"
	"github.com/paimon-go/paimon/types"
)

// After ALTER TABLE changes a column's type, files written before hold the
// old type; reads cast them with Java's values. Here INT values read as
// STRING and as BIGINT. INT to BOOLEAN is a cast Java makes, BOOLEAN to
// DATE one it refuses.
func ExampleArray() {
	b := array.NewInt32Builder(memory.DefaultAllocator)
	b.AppendValues([]int32{7, -1}, nil)
	b.AppendNull()
	old := b.NewArray()
	b.Release()
	defer old.Release()
	for _, to := range []types.DataType{types.String(), types.BigInt()} {
		out, err := cast.Array(memory.DefaultAllocator, old, types.Int(), to)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(to, out)
		out.Release()
	}
	fmt.Println(cast.Supported(types.Int(), types.Boolean()), cast.Supported(types.Boolean(), types.Date()))
	// Output:
	// STRING ["7" "-1" (null)]
	// BIGINT [7 -1 (null)]
	// true false
}
