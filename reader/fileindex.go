package reader

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/fileindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// indexPruner skips data files whose file index (Java FileIndexPredicate)
// proves that an Equal or In conjunct of the filter matches none of their
// rows. For primary-key tables only conjuncts on primary-key columns are
// used: a value column's filter must not hide the newest version of a key.
// The index is DataFileMeta.embeddedIndex, or the separate file
// <data file>.index listed in extraFiles, next to the data file (Java
// FileIndexEvaluator; Java reads separate indexes when it reads the file,
// we when we plan it, with the same result; a Cache keeps the bytes read).
type indexPruner struct {
	t        *tableState
	ts       *schema.TableSchema
	schemaID int64
	conj     []indexConjunct
	// skipped counts the ADD entries skipped, reported as
	// Plan.FileIndexSkipped.
	skipped int
	files   *indexFiles // separate index files read (the Cache's, or the plan's)
	pc      *row.PartitionComputer
}

type indexConjunct struct {
	column string
	t      types.DataType
	values []any
}

func newIndexPruner(t *tableState, filter predicate.Predicate, ts *schema.TableSchema) *indexPruner {
	if filter == nil {
		return nil
	}
	p := &indexPruner{t: t, ts: ts, schemaID: ts.ID}
	if t != nil {
		p.files = t.indexes
	}
	for _, c := range predicate.Conjuncts(filter) {
		i, lits, ok := equalityLiterals(c)
		if !ok || i < 0 || i >= len(ts.Fields) {
			continue
		}
		f := ts.Fields[i]
		if len(ts.PrimaryKeys) > 0 && !slices.Contains(ts.PrimaryKeys, f.Name) {
			continue
		}
		p.conj = append(p.conj, indexConjunct{column: f.Name, t: f.Type, values: lits})
	}
	if len(p.conj) == 0 {
		return nil
	}
	return p
}

// mayContain reports whether file f may hold rows of every usable conjunct.
// Files written under another schema are kept (their column names may
// differ). A damaged index fails the scan, as Java's FileIndexPredicate
// throws on it (the error wraps fileindex.ErrMalformed and names the file),
// and so does a separate index file that cannot be read (naming it), as
// Java's read does.
//
// mayContain tests the embedded index only; mayContainSeparate the separate
// file, which is read, so it is asked only of live files (after netting:
// an ADD entry of a file deleted since may name an index file expired
// with it).
func (p *indexPruner) mayContain(e *manifest.Entry) (bool, error) {
	f := &e.File
	if f.SchemaID != p.schemaID || len(f.EmbeddedIndex) == 0 {
		return true, nil
	}
	return p.test(e, f.EmbeddedIndex, "embedded file index of data file "+f.FileName)
}

// mayContainSeparate is mayContain for the separate index file of e, a
// live file.
func (p *indexPruner) mayContainSeparate(ctx context.Context, e *manifest.Entry) (bool, error) {
	f := &e.File
	if f.SchemaID != p.schemaID || len(f.EmbeddedIndex) != 0 {
		return true, nil
	}
	blob, where, err := p.separate(ctx, e)
	if err != nil || blob == nil {
		return true, err
	}
	return p.test(e, blob, where)
}

func (p *indexPruner) test(e *manifest.Entry, blob []byte, where string) (bool, error) {
	x, err := fileindex.Parse(blob)
	if err != nil {
		return false, fmt.Errorf("reader: %s: %w", where, err)
	}
	for _, c := range p.conj {
		ok, err := x.MightContain(c.column, c.t, c.values)
		if err != nil {
			return false, fmt.Errorf("reader: %s: %w", where, err)
		}
		if !ok {
			if e.Kind == manifest.Add {
				p.skipped++
			}
			return false, nil
		}
	}
	return true, nil
}

// maxIndexFileBytes bounds the read of a separate index file.
const maxIndexFileBytes = 256 << 20

// separate returns the bytes of e's separate index file (nil when it has
// none) and its path for errors.
func (p *indexPruner) separate(ctx context.Context, e *manifest.Entry) ([]byte, string, error) {
	f := &e.File
	var names []string
	for _, x := range f.ExtraFiles {
		if strings.HasSuffix(x, datafile.IndexFileSuffix) {
			names = append(names, x)
		}
	}
	switch {
	case len(names) == 0 || p.t == nil:
		return nil, "", nil
	case len(names) > 1:
		return nil, "", fmt.Errorf("reader: data file %s lists %d index files (%s): %w", f.FileName, len(names), strings.Join(names, ", "), fileindex.ErrMalformed)
	}
	dir := ""
	if f.ExternalPath == nil || *f.ExternalPath == "" {
		var err error
		if dir, err = p.bucketDir(e); err != nil {
			return nil, "", err
		}
	}
	// Beside the data file (datafile.Locations).
	_, extra, external := datafile.Locations(dir, f)
	where := ""
	for _, x := range extra {
		if strings.HasSuffix(x, "/"+names[0]) {
			where = x
		}
	}
	key := p.t.fio.URL() + "\x00" + where
	if b, ok := p.files.get(key); ok {
		return b, "index file " + where, nil
	}
	fio, rel := p.t.fio, where
	if external {
		var done func() error
		var err error
		if fio, rel, done, err = p.t.fio.OpenLocation(ctx, where); err != nil {
			return nil, where, fmt.Errorf("reader: index file %s: %w", where, err)
		}
		defer done()
	}
	b, err := fio.ReadFileLimit(ctx, rel, maxIndexFileBytes)
	if err != nil {
		return nil, where, fmt.Errorf("reader: index file %s of data file %s: %w", where, f.FileName, err)
	}
	p.files.put(key, b)
	return b, "index file " + where, nil
}

// bucketDir returns the bucket directory of e, relative to the table root.
func (p *indexPruner) bucketDir(e *manifest.Entry) (string, error) {
	f := &e.File
	if p.pc == nil {
		pc, err := partitionComputer(p.ts)
		if err != nil {
			return "", err
		}
		p.pc = &pc
	}
	br, err := row.Deserialize(e.Partition)
	if err != nil {
		return "", fmt.Errorf("reader: partition of data file %s: %w", f.FileName, err)
	}
	values, err := row.Decode(row.FieldTypes(p.pc.Fields), br)
	if err != nil {
		return "", fmt.Errorf("reader: partition of data file %s: %w", f.FileName, err)
	}
	dir, err := p.pc.Path(values)
	if err != nil {
		return "", fmt.Errorf("reader: partition path of data file %s: %w", f.FileName, err)
	}
	return bucketPath(p.ts.Options.DataFilePathDirectory()+dir, e.Bucket), nil
}

// indexFiles keeps the bytes of separate index files read, up to a bound,
// oldest out first: they never change (they are named after their data
// file, whose name is unique). Safe for concurrent use; a nil *indexFiles
// keeps nothing.
type indexFiles struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	m        map[string][]byte
	order    []string
}

// defaultIndexFileBytes bounds the separate index files a Cache keeps.
const defaultIndexFileBytes = 16 << 20

func newIndexFiles(maxBytes int) *indexFiles {
	return &indexFiles{maxBytes: maxBytes, m: map[string][]byte{}}
}

func (c *indexFiles) get(key string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[key]
	return b, ok
}

func (c *indexFiles) put(key string, b []byte) {
	if c == nil || len(b) > c.maxBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok {
		return
	}
	c.m[key] = b
	c.order = append(c.order, key)
	c.bytes += len(b)
	for c.bytes > c.maxBytes && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old])
		delete(c.m, old)
	}
}
