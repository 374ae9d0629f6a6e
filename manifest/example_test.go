package manifest_test

import (
	"context"
	"fmt"
	"log"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// Walks the metadata of the latest snapshot of a table written by
// paimon-cpp: its base and delta manifest lists, their manifests, and the
// live data files after netting ADD and DELETE entries.
func Example() {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "../testdata/paimon-tables/pk_table_scan_and_read_mor_parquet")
	if err != nil {
		log.Fatal(err)
	}
	defer fio.Close()
	sn, err := snapshot.NewManager(fio).Latest(ctx)
	if err != nil {
		log.Fatal(err)
	}
	var entries []manifest.Entry
	for _, list := range []string{sn.BaseManifestList, sn.DeltaManifestList} {
		metas, err := manifest.ReadManifestList(ctx, fio, list)
		if err != nil {
			log.Fatal(err)
		}
		for _, m := range metas {
			es, err := manifest.ReadManifest(ctx, fio, m.FileName)
			if err != nil {
				log.Fatal(err)
			}
			entries = append(entries, es...)
		}
	}
	live, err := manifest.Net(entries)
	if err != nil {
		log.Fatal(err)
	}
	rows := int64(0)
	for _, e := range live {
		rows += e.File.RowCount
	}
	fmt.Println(len(entries), "entries,", len(live), "live data files,", rows, "rows before merging")
	// Output:
	// 12 entries, 6 live data files, 16 rows before merging
}
