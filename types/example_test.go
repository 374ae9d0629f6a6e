package types_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/paimon-go/paimon/types"
)

// Paimon types built and parsed from SQL, their JSON form in schema files, and the Arrow type
// rows of it are read and written as.
func Example() {
	tags, err := types.ParseSQL("ARRAY<STRING>")
	if err != nil {
		log.Fatal(err)
	}
	t := types.RowOf(types.Field(4, "id", types.BigInt().NotNull()), types.Field(5, "tags", tags),
		types.Field(6, "price", types.DecimalOf(10, 2)))
	f := types.Field(3, "item", t)
	b, err := json.Marshal(f)
	if err != nil {
		log.Fatal(err)
	}
	back, err := types.ParseFieldJSON(b)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t)
	fmt.Println(back.Equal(f))
	fmt.Println(types.ToArrow(types.DecimalOf(10, 2)), types.ToArrow(types.TimestampOf(6)))
	// Output:
	// ROW<`id` BIGINT NOT NULL, `tags` ARRAY<STRING>, `price` DECIMAL(10, 2)>
	// true
	// decimal(10, 2) timestamp[us]
}
