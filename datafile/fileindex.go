package datafile

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/fileindex"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// IndexFileSuffix ends the name of a data file's separate file index,
// <data file name>.index next to the data file (Java
// DataFilePathFactory.INDEX_PATH_SUFFIX), listed in DataFileMeta.extraFiles.
const IndexFileSuffix = ".index"

// File index options (Java CoreOptions / FileIndexOptions).
const (
	FileIndexBloomColumns   = "file-index.bloom-filter.columns"
	FileIndexInManifestSize = "file-index.in-manifest-threshold"
)

// bloomColumn is one column of file-index.bloom-filter.columns with its
// file-index.bloom-filter.<col>.items and .fpp (Java defaults 1,000,000
// and 0.1, BloomFilterFileIndex).
type bloomColumn struct {
	name  string
	pos   int // column of the written batches
	t     types.DataType
	items int64
	fpp   float64
}

// parseFileIndex reads the bloom-filter columns of o for the written
// columns fields (value columns start at first). Errors: ErrSchema for an
// unknown column, malformed items/fpp.
func parseFileIndex(o schema.Options, fields []types.DataField, first int) ([]bloomColumn, int64, error) {
	spec, _ := o.Get(FileIndexBloomColumns)
	if strings.TrimSpace(spec) == "" {
		return nil, 0, nil
	}
	threshold, err := o.MemorySize(FileIndexInManifestSize, 500)
	if err != nil {
		return nil, 0, err
	}
	var out []bloomColumn
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		pos := -1
		for i := first; i < len(fields); i++ {
			if fields[i].Name == name {
				pos = i
				break
			}
		}
		if pos < 0 {
			return nil, 0, fmt.Errorf("%w: %s names column %q, not in the table", ErrSchema, FileIndexBloomColumns, name)
		}
		if !hashable(fields[pos].Type) {
			return nil, 0, fmt.Errorf("%w: %s: column %q of type %s has no bloom filter in Java", ErrSchema, FileIndexBloomColumns, name, fields[pos].Type)
		}
		items, err := o.Int64("file-index.bloom-filter."+name+".items", 1_000_000)
		if err != nil {
			return nil, 0, err
		}
		fpp, err := o.Float("file-index.bloom-filter."+name+".fpp", 0.1)
		if err != nil {
			return nil, 0, err
		}
		if items <= 0 || fpp <= 0 || fpp >= 1 {
			return nil, 0, fmt.Errorf("%w: bloom filter of %q: items %d, fpp %v", ErrSchema, name, items, fpp)
		}
		out = append(out, bloomColumn{name: name, pos: pos, t: fields[pos].Type, items: items, fpp: fpp})
	}
	return out, threshold, nil
}

func hashable(t types.DataType) bool {
	switch t.Kind {
	case types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary,
		types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindDate, types.KindTime, types.KindFloat, types.KindDouble,
		types.KindTimestamp, types.KindLocalZonedTimestamp:
		return true
	}
	return false
}

// addToBlooms adds the non-null values of part's indexed columns to the
// open file's filters (Java DataFileIndexWriter.write).
func (w *RollingWriter) addToBlooms(part arrow.RecordBatch) error {
	l, f := w.layout, w.cur
	if len(l.blooms) == 0 {
		return nil
	}
	if f.blooms == nil {
		f.blooms = make([]*fileindex.Bloom, len(l.blooms))
		for i, c := range l.blooms {
			f.blooms[i] = fileindex.NewBloom(c.items, c.fpp)
		}
	}
	for i, c := range l.blooms {
		col := part.Column(c.pos)
		for r := 0; r < col.Len(); r++ {
			if col.IsNull(r) {
				continue
			}
			v, err := types.ArrowValue(c.t, col, r)
			if err != nil {
				return fmt.Errorf("%w: column %s: %w", ErrSchema, c.name, err)
			}
			if h, ok := fileindex.Hash(c.t, v); ok {
				f.blooms[i].AddHash(h)
			}
		}
	}
	return nil
}

// fileIndexBytes is the file index of the open file (Java
// DataFileIndexWriter.serializeMaps): nil without indexed columns.
func (w *RollingWriter) fileIndexBytes() []byte {
	l, f := w.layout, w.cur
	if len(l.blooms) == 0 || f == nil {
		return nil
	}
	bodies := make([]fileindex.Body, len(l.blooms))
	for i, c := range l.blooms {
		bodies[i] = fileindex.Body{Column: c.name, Type: fileindex.TypeBloomFilter}
		if f.blooms == nil {
			bodies[i].Empty = true
		} else {
			bodies[i].Bytes = f.blooms[i].Bytes()
		}
	}
	return fileindex.Encode(bodies)
}
