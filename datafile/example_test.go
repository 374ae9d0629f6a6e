package datafile_test

import (
	"fmt"
	"log"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/manifest"
)

// FormatOf picks a data file's format by its extension, and Locations
// says where a data file and the files beside it (a separate file index)
// live: below its bucket directory, or next to its external path.
func Example() {
	f, err := datafile.FormatOf("dt=2026-12-04/bucket-0/data-1.orc")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Name(), datafile.Writes("orc"), datafile.Writes("csv"))

	local := manifest.DataFileMeta{FileName: "data-1.parquet", ExtraFiles: []string{"data-1.parquet.index"}}
	data, extra, external := datafile.Locations("dt=2026-12-04/bucket-0", &local)
	fmt.Println(data, extra, external)

	ext := "s3://bucket/ext/db.db/t/dt=2026-12-04/bucket-0/data-2.parquet"
	remote := manifest.DataFileMeta{FileName: "data-2.parquet", ExtraFiles: []string{"data-2.parquet.index"}, ExternalPath: &ext}
	data, extra, external = datafile.Locations("", &remote)
	fmt.Println(data, extra, external)
	// Output:
	// orc true false
	// dt=2026-12-04/bucket-0/data-1.parquet [dt=2026-12-04/bucket-0/data-1.parquet.index] false
	// s3://bucket/ext/db.db/t/dt=2026-12-04/bucket-0/data-2.parquet [s3://bucket/ext/db.db/t/dt=2026-12-04/bucket-0/data-2.parquet.index] true
}
