package compaction

// The deletion-vector lookup of primary-key compaction (Java
// LookupMergeTreeCompactRewriter with LookupChangelogMergeFunctionWrapper
// under a deletion-vector LookupStrategy, over LookupLevels): when records of
// level 0 reach a level above 0, the older version of each key on the levels
// above the output level is marked deleted in the bucket's deletion vectors,
// so that batch reads, which skip level 0 and read the higher levels without
// merging, see every key once.

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/types"
)

// KeyReader reads the rows of a data file of the bucket in file order, every
// row (deleted ones included), as batches whose first columns are the
// trimmed primary key in key order; further columns (the rest of the
// KeyValue layout) may follow. The consumer releases each batch.
type KeyReader func(ctx context.Context, f *manifest.DataFileMeta) iter.Seq2[arrow.RecordBatch, error]

// DVHit is where DVLookup.Find found a key: row Position (0-based) of data
// file File on Level, which is row Row of Batch. Batch holds the columns the
// KeyReader reads (with a KeyValue reader, the old record that Java merges
// into the new one, PositionedKeyValue); it belongs to the DVLookup and is
// valid until the next Find or Close (Retain it to keep it).
type DVHit struct {
	Level    int
	File     string
	Position int64
	Batch    arrow.RecordBatch
	Row      int
}

// DVLookup finds the live version of keys on the levels above a
// compaction's output level, lowest level first (Java
// LookupLevels.lookup(key, outputLevel + 1) over files read with their
// deletion vectors), and marks it deleted. Keys must be asked in ascending
// key order: each level is read sequentially, once, skipping files whose key
// range cannot hold the key. Rows the Maintainer already marks deleted are
// not found (Java reads the levels with the bucket's deletion vectors).
//
// A DVLookup is not safe for concurrent use; Close it when done.
type DVLookup struct {
	keys     *KeyOrder
	keyTypes []types.DataType
	dvs      *deletionvector.Maintainer
	probes   []*dvProbe
}

// NewDVLookup returns a DVLookup over above, the non-empty sorted runs of
// the levels above the output level in ascending level order (each file's
// Level must be its run's level), reading files with read and marking
// deletions in dvs, the bucket's Maintainer. keys orders the trimmed
// primary keys, of types keyTypes. dvs may be nil for a table without
// deletion vectors (the first-row lookup, which only asks Find): no row is
// deleted then, and MarkReplaced fails.
func NewDVLookup(keys *KeyOrder, keyTypes []types.DataType, above []LevelSortedRun, read KeyReader, dvs *deletionvector.Maintainer) *DVLookup {
	l := &DVLookup{keys: keys, keyTypes: keyTypes, dvs: dvs}
	for _, r := range above {
		if len(r.Run.Files) > 0 {
			l.probes = append(l.probes, &dvProbe{l: l, level: r.Level, files: r.Run.Files, read: read})
		}
	}
	return l
}

func (l *DVLookup) Find(ctx context.Context, k []any) (hit DVHit, ok bool, err error) {
	for _, p := range l.probes {
		if hit, ok, err = p.find(ctx, k); err != nil || ok {
			return hit, ok, err
		}
	}
	return DVHit{}, false, nil
}

// MarkReplaced finds key k as Find does and, when found, marks that row
// deleted in the Maintainer (Java
// LookupChangelogMergeFunctionWrapper.getResult:
// deletionVectorsMaintainer.notifyNewDeletion(fileName, rowPosition)).
// It reports whether a row was marked. Errors: those of Find, and
// deletionvector.ErrPosition.
func (l *DVLookup) MarkReplaced(ctx context.Context, k []any) (bool, error) {
	if l.dvs == nil {
		return false, fmt.Errorf("%w: marking replaced rows needs the bucket's deletion vectors", ErrInvalidArgument)
	}
	hit, ok, err := l.Find(ctx, k)
	if err != nil || !ok {
		return false, err
	}
	if err := l.dvs.NotifyNewDeletion(hit.File, hit.Position); err != nil {
		return false, fmt.Errorf("compaction: mark %s row %d deleted: %w", hit.File, hit.Position, err)
	}
	return true, nil
}

// MarkBatch calls MarkReplaced for the key of every row of rec, whose first
// columns are the key (a batch of a compaction's merged output, retractions
// included), and returns the number of rows marked deleted.
func (l *DVLookup) MarkBatch(ctx context.Context, rec arrow.RecordBatch) (int, error) {
	if err := checkKeyColumns(rec, l.keyTypes); err != nil {
		return 0, err
	}
	n := 0
	for i := range int(rec.NumRows()) {
		k, err := dvKeyAt(rec, i, l.keyTypes)
		if err != nil {
			return n, err
		}
		marked, err := l.MarkReplaced(ctx, k)
		if err != nil {
			return n, err
		}
		if marked {
			n++
		}
	}
	return n, nil
}

// Close releases the files and batches still open.
func (l *DVLookup) Close() {
	for _, p := range l.probes {
		p.close()
	}
}

// MarkReplaced is the standalone form of DVLookup.MarkReplaced: it marks
// deleted, in dvs, the live version on the levels above (ascending level
// order) of every key of keys (ascending) and returns how many rows it
// marked. See NewDVLookup for the arguments.
func MarkReplaced(ctx context.Context, keys [][]any, order *KeyOrder, keyTypes []types.DataType, above []LevelSortedRun, read KeyReader, dvs *deletionvector.Maintainer) (int, error) {
	l := NewDVLookup(order, keyTypes, above, read, dvs)
	defer l.Close()
	n := 0
	for _, k := range keys {
		marked, err := l.MarkReplaced(ctx, k)
		if err != nil {
			return n, err
		}
		if marked {
			n++
		}
	}
	return n, nil
}

// cloneKey copies k into dst (reused when large enough), detaching strings
// and byte slices from the buffers they may alias (types.ArrowView).
func cloneKey(k, dst []any) []any {
	dst = append(dst[:0], k...)
	for i, v := range dst {
		switch x := v.(type) {
		case string:
			dst[i] = strings.Clone(x)
		case []byte:
			dst[i] = bytes.Clone(x)
		}
	}
	return dst
}

// checkKeyColumns checks that rec's first columns have the Arrow types of
// the key.
func checkKeyColumns(rec arrow.RecordBatch, keyTypes []types.DataType) error {
	if int(rec.NumCols()) < len(keyTypes) {
		return fmt.Errorf("%w: batch of %d columns, key has %d", ErrSchema, rec.NumCols(), len(keyTypes))
	}
	for c, t := range keyTypes {
		if want, got := types.ToArrow(t), rec.Column(c).DataType(); !arrow.TypeEqual(want, got) {
			return fmt.Errorf("%w: key column %d is %s, want %s", ErrSchema, c, got, want)
		}
	}
	return nil
}

// dvKeyAt returns row i's key columns, checked by checkKeyColumns, as Go
// values that may alias rec's buffers.
func dvKeyAt(rec arrow.RecordBatch, i int, keyTypes []types.DataType) ([]any, error) {
	out := make([]any, len(keyTypes))
	for c, t := range keyTypes {
		v, err := types.ArrowView(t, rec.Column(c), i)
		if err != nil {
			return nil, fmt.Errorf("%w: key column %d: %w", ErrSchema, c, err)
		}
		out[c] = v
	}
	return out, nil
}

// dvProbe reads one sorted run sequentially for keys asked in ascending
// order.
type dvProbe struct {
	l     *DVLookup
	level int
	files []manifest.DataFileMeta
	read  KeyReader

	fi   int // current file
	next func() (arrow.RecordBatch, error, bool)
	stop func()
	cur  arrow.RecordBatch
	row  int   // current row of cur
	base int64 // file position of cur's first row
	seen int64 // rows of the current file read before cur
}

func (p *dvProbe) find(ctx context.Context, k []any) (DVHit, bool, error) {
	keys := p.l.keys
	for {
		if p.cur != nil {
			for p.row < int(p.cur.NumRows()) {
				ck, err := dvKeyAt(p.cur, p.row, p.l.keyTypes)
				if err != nil {
					return DVHit{}, false, fmt.Errorf("compaction: data file %s: %w", p.files[p.fi].FileName, err)
				}
				c := keys.Compare(ck, k)
				if c < 0 {
					p.row++
					continue
				}
				if c > 0 {
					return DVHit{}, false, nil
				}
				// A key appears at most once per level: a deleted row means
				// the level does not hold the key.
				name := p.files[p.fi].FileName
				pos := p.base + int64(p.row)
				if p.l.dvs != nil && p.l.dvs.DeletionVectorOf(name).IsDeleted(pos) {
					return DVHit{}, false, nil
				}
				return DVHit{Level: p.level, File: name, Position: pos, Batch: p.cur, Row: p.row}, true, nil
			}
			p.seen += p.cur.NumRows()
			p.cur.Release()
			p.cur = nil
		}
		if p.next != nil {
			rec, err, ok := p.next()
			if err != nil {
				return DVHit{}, false, err
			}
			if ok {
				p.cur, p.row, p.base = rec, 0, p.seen
				if err := checkKeyColumns(rec, p.l.keyTypes); err != nil {
					return DVHit{}, false, fmt.Errorf("compaction: data file %s: %w", p.files[p.fi].FileName, err)
				}
				continue
			}
			p.closeFile()
			p.fi++
		}
		for p.fi < len(p.files) {
			_, maxK, err := keys.Keys(&p.files[p.fi])
			if err != nil {
				return DVHit{}, false, err
			}
			if keys.Compare(maxK, k) >= 0 {
				break
			}
			p.fi++
		}
		if p.fi >= len(p.files) {
			return DVHit{}, false, nil
		}
		minK, _, err := keys.Keys(&p.files[p.fi])
		if err != nil {
			return DVHit{}, false, err
		}
		if keys.Compare(minK, k) > 0 {
			return DVHit{}, false, nil
		}
		p.next, p.stop = iter.Pull2(p.read(ctx, &p.files[p.fi]))
		p.seen = 0
	}
}

func (p *dvProbe) closeFile() {
	if p.stop != nil {
		p.stop()
	}
	p.next, p.stop = nil, nil
}

func (p *dvProbe) close() {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	p.closeFile()
}
