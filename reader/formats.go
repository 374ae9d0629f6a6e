package reader

import (
	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/format"
)

// formatFor returns the file format of a data file from its extension
// (datafile.FormatOf, the one registry of formats).
func formatFor(name string) (format.Format, error) { return datafile.FormatOf(name) }
