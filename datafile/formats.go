package datafile

import (
	"fmt"
	"path"
	"strings"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/avro"
	"github.com/paimon-go/paimon/format/orc"
	"github.com/paimon-go/paimon/format/parquet"
)

// lookupFormat is the registry of data file formats: the format of a
// file.format value (also the data file name extension) and whether this
// library writes it. Adding a format, or its writer, is one line here.
func lookupFormat(name string) (f format.Format, writes bool) {
	switch name {
	case "parquet":
		return parquet.Format{}, true
	case "avro":
		return avro.Format{}, true
	case "orc":
		return orc.Format{}, false
	}
	return nil, false
}

// Format returns the data file format named name (a file.format value,
// case-insensitive, as Java's FileFormat.fromIdentifier).
//
// Errors: format.ErrUnsupportedFormat for a name no format has.
func Format(name string) (format.Format, error) {
	if f, _ := lookupFormat(strings.ToLower(name)); f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%w: file format %q", format.ErrUnsupportedFormat, name)
}

// Writes reports whether this library writes data files of the format
// named name (case-insensitive): parquet and avro.
func Writes(name string) bool {
	_, w := lookupFormat(strings.ToLower(name))
	return w
}

// FormatOf returns the format of the data file at filePath from its name
// extension (".parquet", ".orc", ".avro"), as Java's
// DataFilePathFactory.formatIdentifier: every file of a table is read in
// its own format, whatever file.format says now.
//
// Errors: format.ErrUnsupportedFormat naming the file for an extension no
// format has.
func FormatOf(filePath string) (format.Format, error) {
	name := path.Base(filePath)
	ext := name[strings.LastIndexByte(name, '.')+1:]
	if f, _ := lookupFormat(strings.ToLower(ext)); f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%w: data file %s (format %q)", format.ErrUnsupportedFormat, filePath, ext)
}
