package reader

// Point lookups of primary keys (Java TableQuery / LocalTableQuery.lookup):
// a scan filtered to the given keys. The filter prunes partitions and, by
// the key statistics of manifest entries, files; the merge of each bucket
// gives the keys' current rows, which the filter then keeps.

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// KeyFilter returns the filter that selects the rows of the primary keys in
// keys: a batch whose columns are the table's primary key columns (by name,
// in any order, of the table's types; nothing else), one key per row. The
// result is In over the key for a one-column primary key; for a composite
// one, In over each column's values ANDed with an Or of each key's Ands of
// Equal (the Ins let the scan keep only the buckets of the keys).
//
// Errors wrap ErrInvalidScan: a table without a primary key, a column that
// is not a primary key column or a missing one, a type that differs, a NULL
// key value, or no key at all.
func KeyFilter(ts *schema.TableSchema, keys arrow.RecordBatch) (predicate.Predicate, error) {
	if len(ts.PrimaryKeys) == 0 {
		return nil, fmt.Errorf("%w: lookup: the table has no primary key", ErrInvalidScan)
	}
	if keys == nil || keys.NumRows() == 0 {
		return nil, fmt.Errorf("%w: lookup: no key", ErrInvalidScan)
	}
	if int(keys.NumCols()) != len(ts.PrimaryKeys) {
		return nil, fmt.Errorf("%w: lookup: keys have %d columns, the primary key (%v) has %d", ErrInvalidScan, keys.NumCols(), ts.PrimaryKeys, len(ts.PrimaryKeys))
	}
	refs := make([]predicate.Ref, len(ts.PrimaryKeys))
	cols := make([]arrow.Array, len(ts.PrimaryKeys))
	for i, name := range ts.PrimaryKeys {
		ref, ok := predicate.RefOf(ts.Fields, name)
		if !ok {
			return nil, fmt.Errorf("%w: lookup: primary key column %q is not a field", ErrInvalidScan, name)
		}
		idx := keys.Schema().FieldIndices(name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("%w: lookup: keys lack primary key column %q", ErrInvalidScan, name)
		}
		col := keys.Column(idx[0])
		if want := types.ToArrow(ref.Type); !arrow.TypeEqual(want, col.DataType()) {
			return nil, fmt.Errorf("%w: lookup: key column %q is %s, the table's is %s", ErrInvalidScan, name, col.DataType(), want)
		}
		refs[i], cols[i] = ref, col
	}
	n := int(keys.NumRows())
	values := make([][]any, n)
	for r := range n {
		values[r] = make([]any, len(refs))
		for i, ref := range refs {
			if cols[i].IsNull(r) {
				return nil, fmt.Errorf("%w: lookup: key %d has a NULL %q", ErrInvalidScan, r, ref.Name)
			}
			v, err := types.ArrowValue(ref.Type, cols[i], r)
			if err != nil {
				return nil, fmt.Errorf("%w: lookup: key %d, column %q: %w", ErrInvalidScan, r, ref.Name, err)
			}
			values[r][i] = v
		}
	}
	if len(refs) == 1 {
		lits := make([]any, n)
		for r := range n {
			lits[r] = values[r][0]
		}
		if n == 1 {
			return predicate.Equal(refs[0], lits[0]), nil
		}
		return predicate.In(refs[0], lits...), nil
	}
	ors := make([]predicate.Predicate, n)
	for r := range n {
		ands := make([]predicate.Predicate, len(refs))
		for i, ref := range refs {
			ands[i] = predicate.Equal(ref, values[r][i])
		}
		ors[r] = predicate.And(ands...)
	}
	if n == 1 {
		return ors[0], nil
	}
	// Each column's values as a conjunct of their own too: the pruner takes
	// the buckets (and key ranges) of their combinations from them, which
	// it cannot from the Or.
	conj := make([]predicate.Predicate, 0, len(refs)+1)
	for i, ref := range refs {
		lits := make([]any, n)
		for r := range n {
			lits[r] = values[r][i]
		}
		// Distinct values, sorted: O(n log n) for large key batches.
		cmp := func(a, b any) int { return types.Compare(ref.Type, a, b) }
		slices.SortFunc(lits, cmp)
		lits = slices.CompactFunc(lits, func(a, b any) bool { return cmp(a, b) == 0 })
		conj = append(conj, predicate.In(ref, lits...))
	}
	return predicate.And(append(conj, predicate.Or(ors...))...), nil
}

// Concat reads records to the end and returns them as one batch of schema
// sc (an empty batch when there is none). mem nil means the default
// allocator. Errors are those of records and of concatenating.
func Concat(records iter.Seq2[arrow.RecordBatch, error], sc *arrow.Schema, mem memory.Allocator) (arrow.RecordBatch, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for rec, err := range records {
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	cols := make([]arrow.Array, sc.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for c := range cols {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		if len(parts) == 0 {
			cols[c] = array.MakeArrayOfNull(mem, sc.Field(c).Type, 0)
			continue
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, fmt.Errorf("reader: concatenate: %w", err)
		}
		cols[c] = a
	}
	return array.NewRecordBatch(sc, cols, rows), nil
}

// Lookup returns the current rows of the primary keys in keys (WithKeys,
// KeyFilter), with the output columns of the scan's options (WithColumns;
// every column by default): one row per key found, none for a missing key,
// by partition and bucket, in key order within each. It honours the scan's
// other options (snapshot, tag, timestamp, filters). The caller releases
// the batch. Errors: those of KeyFilter (ErrInvalidScan), Plan and reading.
func (s *Scan) Lookup(ctx context.Context, keys arrow.RecordBatch) (arrow.RecordBatch, error) {
	if keys == nil {
		return nil, fmt.Errorf("%w: lookup: no key batch", ErrInvalidScan)
	}
	c := *s
	c.cfg.keys = keys
	p, err := c.Plan(ctx)
	if err != nil {
		return nil, err
	}
	return Concat(p.Records(ctx), types.SchemaToArrow(p.Fields), nil)
}

// Narrow returns the plan of a point lookup of keys (as Scan.Lookup plans
// it with WithKeys) over the snapshot p already planned, without reading
// any metadata again: p's splits are kept only for the partitions and
// buckets the keys can be in, and each split's files only when their key
// statistics and file indexes may hold a key (the pruning of Plan, applied
// to the files p holds). The filter is KeyFilter(keys) ANDed with p's. p
// is left unchanged and may be narrowed again, also concurrently; the
// narrowed plan shares p's files and deletion-vector maps (read-only).
//
// Repeated lookups of one snapshot thus pay its planning once (Java's
// LocalTableQuery keeps its levels per bucket likewise). p must be a plan
// of Scan.Plan of a primary-key table without WithKeys, WithChanges,
// incremental options or postpone merge-on-read; otherwise, and for keys
// that do not fit the table, the error wraps ErrInvalidScan.
func (p *Plan) Narrow(ctx context.Context, keys arrow.RecordBatch) (*Plan, error) {
	if p.table == nil || p.Schema == nil || p.cfg.keys != nil || p.cfg.changes != nil || p.cfg.incremental != nil {
		return nil, fmt.Errorf("%w: narrow: the plan is not a plain plan of Scan.Plan", ErrInvalidScan)
	}
	kf, err := KeyFilter(p.Schema, keys)
	if err != nil {
		return nil, err
	}
	filter := kf
	if p.filter != nil {
		filter = predicate.And(p.filter, kf)
	}
	dvEnabled, err := p.Schema.Options.DeletionVectorsEnabled()
	if err != nil {
		return nil, err
	}
	engine, err := p.Schema.Options.MergeEngine()
	if err != nil {
		return nil, err
	}
	pr := newPruner(p.table, p.Schema, filter, p.cfg.bucket, keys)
	pr.memo = p.memo
	out := *p
	out.filter, out.sel, out.Splits = filter, pr.sel, nil
	out.cfg.keys = keys
	for _, sp := range p.Splits {
		if sp.post != nil || sp.diff || sp.Changes || sp.table != p.table {
			return nil, fmt.Errorf("%w: narrow: split %s is not a plain split of the plan's table", ErrInvalidScan, sp.BucketPath)
		}
		if len(sp.Files) == 0 || (pr.sel.bucket != nil && sp.Bucket != *pr.sel.bucket) ||
			(pr.sel.buckets != nil && !pr.sel.buckets.selects(sp.Bucket, sp.TotalBuckets)) {
			continue // not the keys' bucket: no file of it is kept
		}
		var kept []manifest.DataFileMeta
		for i := range sp.Files {
			e := manifest.Entry{Kind: manifest.Add, Partition: sp.Partition, Bucket: sp.Bucket, TotalBuckets: sp.TotalBuckets, File: sp.Files[i]}
			ok, err := pr.keep(ctx, &e)
			if err == nil && ok {
				ok, err = pr.keepLive(ctx, &e)
			}
			if err != nil {
				return nil, err
			}
			if ok {
				kept = append(kept, sp.Files[i])
			}
		}
		if len(kept) == 0 {
			continue
		}
		n := *sp
		n.Files = kept
		n.RawConvertible = rawConvertible(kept, dvEnabled || engine == schema.MergeFirstRow)
		out.Splits = append(out.Splits, &n)
	}
	out.FileIndexSkipped = 0
	if pr.index != nil {
		out.FileIndexSkipped = pr.index.skipped
	}
	return &out, nil
}
