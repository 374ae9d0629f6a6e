package reader

import (
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/orc"
	"github.com/paimon-go/paimon/format/parquet"
)

// lookupFormat returns the data file format for a file name extension, or
// nil when this reader has none. Avro data files are not read yet.
func lookupFormat(ext string) format.Format {
	switch ext {
	case "parquet":
		return parquet.Format{}
	case "orc":
		return orc.Format{}
	}
	return nil
}
