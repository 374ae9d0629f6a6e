package fileindex_test

import (
	"fmt"
	"log"

	"github.com/paimon-go/paimon/fileindex"
	"github.com/paimon-go/paimon/types"
)

// Builds the bloom-filter index of one data file's "city" column as Java's
// DataFileIndexWriter does, and asks it whether the file may hold a value:
// a false answer lets a scan skip the file.
func Example() {
	bloom := fileindex.NewBloom(100, 0.01) // file-index.bloom-filter.city.items / .fpp
	for _, city := range []string{"Oslo", "Rome", "Lima"} {
		h, ok := fileindex.Hash(types.String(), city)
		if !ok {
			log.Fatal("no hash")
		}
		bloom.AddHash(h)
	}
	blob := fileindex.Encode([]fileindex.Body{{Column: "city", Type: "bloom-filter", Bytes: bloom.Bytes()}})
	idx, err := fileindex.Parse(blob) // DataFileMeta.embeddedIndex, or the <file>.index file
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range []string{"Rome", "Paris"} {
		ok, err := idx.MightContain("city", types.String(), []any{v})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(v, ok)
	}
	// Output:
	// Rome true
	// Paris false
}
