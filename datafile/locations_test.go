package datafile_test

import (
	"slices"
	"testing"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/manifest"
)

// TestLocations: a data file's extra files sit beside it, in the same
// spelling as its location: object-store URLs keep their "//" and Java's
// "file:/abs" stays as it is (a cleaned path.Dir turned "s3://b/k" into
// "s3:/b", which names no bucket).
func TestLocations(t *testing.T) {
	for _, tc := range []struct {
		ext      string
		data     string
		extra    []string
		external bool
	}{
		{"", "dt=1/bucket-0/data-a-0.parquet", []string{"dt=1/bucket-0/data-a-0.parquet.index"}, false},
		{"s3://bucket/ext/t/bucket-0/data-a-0.parquet", "s3://bucket/ext/t/bucket-0/data-a-0.parquet",
			[]string{"s3://bucket/ext/t/bucket-0/data-a-0.parquet.index"}, true},
		{"file:///tmp/ext/bucket-0/data-a-0.parquet", "file:///tmp/ext/bucket-0/data-a-0.parquet",
			[]string{"file:///tmp/ext/bucket-0/data-a-0.parquet.index"}, true},
		{"file:/tmp/ext/bucket-0/data-a-0.parquet", "file:/tmp/ext/bucket-0/data-a-0.parquet",
			[]string{"file:/tmp/ext/bucket-0/data-a-0.parquet.index"}, true},
	} {
		f := manifest.DataFileMeta{FileName: "data-a-0.parquet", ExtraFiles: []string{"data-a-0.parquet.index"}}
		if tc.ext != "" {
			ext := tc.ext
			f.ExternalPath = &ext
		}
		data, extra, external := datafile.Locations("dt=1/bucket-0", &f)
		if data != tc.data || !slices.Equal(extra, tc.extra) || external != tc.external {
			t.Errorf("%q: %q %q %v, want %q %q %v", tc.ext, data, extra, external, tc.data, tc.extra, tc.external)
		}
	}
}
