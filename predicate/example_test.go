package predicate_test

import (
	"fmt"
	"log"

	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/types"
)

// Parses a filter over a table's fields (the CLI's --where), tests it on
// rows, and on the min/max statistics of a data file as scan planning does.
func Example() {
	fields := []types.DataField{
		types.Field(0, "id", types.BigInt()),
		types.Field(1, "city", types.String()),
	}
	p, err := predicate.Parse("id >= 10 AND city IN ('Oslo', 'Rome')", fields)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p)
	fmt.Println(p.Test([]any{int64(12), "Rome"}), p.Test([]any{int64(12), "Lima"}), p.Test([]any{int64(3), "Oslo"}))
	// A file whose ids lie in [1, 9] cannot match; one with [5, 20] might.
	fmt.Println(p.TestStats(100, []any{int64(1), "A"}, []any{int64(9), "Z"}, []int64{0, 0}))
	fmt.Println(p.TestStats(100, []any{int64(5), "A"}, []any{int64(20), "Z"}, []int64{0, 0}))
	// Output:
	// `id` >= 10 AND `city` IN ('Oslo', 'Rome')
	// true false false
	// false
	// true
}
