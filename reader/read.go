package reader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/format/cast"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// System field ids and names of key-value data files (Java SpecialFields).
const (
	keyFieldIDOffset = types.SystemFieldIDStart // _KEY_<f> id = offset + id of f
	sequenceNumberID = 2147483646
	valueKindID      = 2147483645
	// rowIDFieldID is the id of the hidden _CAST_ROW_ID column a lazy
	// merge read carries through the merge (castPoison).
	rowIDFieldID        = 2147483644
	keyFieldPrefix      = "_KEY_"
	sequenceNumberField = merge.SequenceNumberColumn
	valueKindField      = merge.ValueKindColumn
)

// Records plans nothing more: it reads every split of the plan in order and
// yields the rows as Arrow record batches with schema
// types.SchemaToArrow(p.Fields). The consumer owns each batch and must
// Release it. Stopping early is allowed; on error the iterator yields
// (nil, err) once and stops.
func (p *Plan) Records(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, sp := range p.Splits {
			for rec, err := range p.ReadSplit(ctx, sp) {
				if !yield(rec, err) || err != nil {
					return
				}
			}
		}
	}
}

// RecordReader returns the rows of every split as an array.RecordReader.
// Errors end the stream and are returned by Err.
func (p *Plan) RecordReader(ctx context.Context) array.RecordReader {
	return array.ReaderFromIter(types.SchemaToArrow(p.Fields), p.Records(ctx))
}

// Schema returns the Arrow schema of the batches Records yields.
func (p *Plan) ArrowSchema() *arrow.Schema { return types.SchemaToArrow(p.Fields) }

// ReadSplit reads one split: append files are concatenated, primary-key
// buckets are merged with the table's merge engine unless the split is raw
// convertible. Deletion vectors are applied, the scan filter is applied to
// the rows, and the output is projected to p.Fields.
func (p *Plan) ReadSplit(ctx context.Context, sp *Split) iter.Seq2[arrow.RecordBatch, error] {
	return p.ReadSplitWith(ctx, sp, nil)
}

// ReadSplitWith reads split sp like ReadSplit, together with rows held in
// memory for the same partition-bucket (the union read of the real-time
// layer; paimon-cpp's RealtimeSplit reader, realtime-design.md section 8).
// With no mem streams it is ReadSplit.
//
// Each mem stream is an iterator of Arrow record batches whose columns are
// matched to the table columns of the split's schema by name, in any order;
// a needed column that is missing, or has another Arrow type than
// types.ToArrow gives, fails the read with ErrInvalidScan. Other columns
// (_REALTIME_OFFSET and the like) are ignored. The read takes ownership of
// every batch a mem stream yields and releases it; an error yielded by a mem
// stream ends the read with that error, annotated with the stream's index.
// Streams not yet started when the read stops are never started.
//
//   - Append table: the split's files are read first (as ReadSplit does), then
//     each mem stream in order. The needed columns are the projection plus the
//     filter's columns. The scan filter and projection apply to memory rows as
//     to file rows.
//   - Primary-key table: each mem stream is one sorted run, newer than every
//     file of the split: besides the table columns it carries _VALUE_KIND
//     (Int8, Java RowKind byte, no nulls) and _SEQUENCE_NUMBER (Int64, no
//     nulls), and its rows are sorted by trimmed primary key, then sequence
//     number. Every table column is needed, because the merge reads whole
//     rows. The mem runs are merged with all sorted runs of the split's files
//     (level-0 files one run each, one run per higher level) through the same
//     merge as ReadSplit (merge engine, sequence.field, deletes dropped); the
//     raw-convertible shortcut is never taken when mem is not empty. Deletion
//     vectors of the files still apply. The scan filter is applied after the
//     merge and the projection last.
//
// Output batches have at most the plan's batch size rows (WithBatchSize)
// and the schema p.ArrowSchema(). The consumer owns each batch and must
// Release it. On error the iterator yields (nil, err) once and stops.
func (p *Plan) ReadSplitWith(ctx context.Context, sp *Split, mem []iter.Seq2[arrow.RecordBatch, error]) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		yieldErr := func(err error) {
			if sp != nil && sp.table == p.table && p.table != nil {
				err = expiredErr(ctx, p.table.meta, p.Snapshot, p.cfg.tag != "", err)
			}
			yield(nil, err)
		}
		if sp != nil && sp.post != nil {
			// postpone.merge-on-read: the routed bucket-postpone rows are
			// one more run, newer than the split's files.
			mem = append([]iter.Seq2[arrow.RecordBatch, error]{p.postponeRows(ctx, sp)}, mem...)
		}
		sr, err := p.newSplitRead(ctx, sp, len(mem) > 0)
		if err != nil {
			yieldErr(err)
			return
		}
		var src iter.Seq2[arrow.RecordBatch, error]
		switch {
		case sr.kv && sp.diff:
			src = sr.diffMerged(ctx)
		case sr.kv:
			src = sr.merged(ctx, mem)
		case len(mem) == 0:
			src = sr.raw(ctx)
		default:
			src = sr.rawWith(ctx, mem)
		}
		for rec, err := range src {
			if err != nil {
				yieldErr(err)
				return
			}
			out, err := sr.finish(rec)
			rec.Release()
			if err != nil {
				yieldErr(err)
				return
			}
			if out == nil {
				continue
			}
			if !yield(out, nil) {
				return
			}
		}
	}
}

// splitRead holds what reading one split needs.
type splitRead struct {
	plan      *Plan
	sp        *Split
	ts        *schema.TableSchema
	kv        bool                // files are merged: read in the key-value layout
	valueCols []types.DataField   // value columns read from files (read schema)
	outIdx    []int               // positions of p.Fields within valueCols
	outSchema *arrow.Schema       // types.SchemaToArrow(p.Fields), built once per split read
	filter    predicate.Predicate // the row filter: p.filter, nil when the split's partition decides it (partitionDecides)
	filterCol []int               // per field of p.Schema: its column in valueCols, -1 if not read
	unneeded  map[int]bool        // field ids of merged value columns read as nulls (mergeUnneeded)
	poison    *castPoison         // lazy merge read: valueCols ends with castRowIDField
	rawKV     bool                // key-value files read without merging (change splits, rowkind reads)
	kindCol   bool                // source batches carry _VALUE_KIND after the value columns
	mem       memory.Allocator
	targets   [2]*fileTarget // by withKeys: see target
	point     bool           // read as a point lookup's (lookupCache): set by Plan.Prefetch
}

// fileTarget is the layout data files are read into by one split read,
// built once per split read rather than once per file.
type fileTarget struct {
	fields []types.DataField
	schema *arrow.Schema // types.SchemaToArrow(fields)
	cols   []string      // the fields as the lookup cache's key names them

	mu      sync.Mutex
	evolved []*evolved // per file schema read into fields, at most maxEvolved
}

// maxEvolved bounds the file schemas a fileTarget keeps evolve's result
// for: a table has a few schemas in use, and a target lives for a plan.
const maxEvolved = 16

// evolved is evolve's result of reading files of one file schema into a
// target, with the Arrow schemas of the columns read (want) and of the
// target: ReadDataFile needs them for every file, and building them for
// each of the hundreds of small files a commit writes in a table of many
// buckets cost a third of the lookups' warming after the commit.
type evolved struct {
	fileSchema   *schema.TableSchema
	want         []types.DataField
	slot         []int
	from         []*types.DataType
	wantSchema   *arrow.Schema // types.SchemaToArrow(want)
	targetSchema *arrow.Schema // types.SchemaToArrow(target)
}

// evolve returns evolve's result for files of fileSchema (schemas are
// immutable and a table's reads share one value per schema id, so the
// pointer identifies it), kept for the next files.
func (t *fileTarget) evolve(fileSchema *schema.TableSchema) *evolved {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.evolved {
		if e.fileSchema == fileSchema {
			return e
		}
	}
	want, slot, from := evolve(t.fields, fileSchema, nil)
	// Shared by concurrent reads: an append by a reader must not write
	// into it.
	want = slices.Clip(want)
	e := &evolved{fileSchema: fileSchema, want: want, slot: slot, from: from, wantSchema: types.SchemaToArrow(want), targetSchema: t.schema}
	if len(t.evolved) < maxEvolved {
		t.evolved = append(t.evolved, e)
	}
	return e
}

// target returns the layout readFile reads files into: the key-value
// layout (kvFields) for merged and raw key-value reads, else the value
// columns.
func (sr *splitRead) target(withKeys bool) *fileTarget {
	i := 0
	if withKeys {
		i = 1
	}
	if t := sr.targets[i]; t != nil {
		return t
	}
	// A merge read's layout depends only on the split's schema (its value
	// columns are all of them): the plan's lookups share it.
	var mk targetKey
	memo := sr.plan.memo
	if memo != nil && sr.kv {
		mk = targetKey{ts: sr.ts, withKeys: withKeys, poison: sr.poison != nil}
		if t, ok := memo.targets.Load(mk); ok {
			sr.targets[i] = t.(*fileTarget)
			return sr.targets[i]
		}
	}
	t := &fileTarget{fields: sr.valueCols}
	if sr.kv || sr.rawKV {
		t.fields = sr.kvFields(withKeys)
	}
	t.schema = types.SchemaToArrow(t.fields)
	t.cols = make([]string, len(t.fields))
	for i, f := range t.fields {
		t.cols[i] = strconv.Itoa(f.ID) + ":" + f.Name + ":" + f.Type.String()
	}
	sr.targets[i] = t
	if memo != nil && sr.kv {
		memo.targets.Store(mk, t)
	}
	return t
}

// newSplitRead prepares reading sp, with in-memory runs when withMem. A
// primary-key split is merged (key-value layout, every column) unless it is
// raw convertible and has no in-memory runs; other splits are read raw.
func (p *Plan) newSplitRead(ctx context.Context, sp *Split, withMem bool) (*splitRead, error) {
	if sp == nil || sp.table == nil || sp.schema == nil {
		return nil, fmt.Errorf("%w: split was not made by Plan or EmptySplit", ErrInvalidScan)
	}
	if (sp.Changes || sp.diff) && withMem {
		return nil, fmt.Errorf("%w: in-memory rows with change split %s", ErrInvalidScan, sp.BucketPath)
	}
	merging := sp.PrimaryKey && !sp.Changes && (!sp.RawConvertible || withMem || sp.diff)
	ts := sp.schema // differs from p.Schema for splits of a fallback branch
	sr := &splitRead{plan: p, sp: sp, ts: ts, kv: merging, mem: memory.DefaultAllocator, filter: p.filter}
	if partitionDecides(p, sp) {
		sr.filter = nil
	}
	sr.rawKV = sp.PrimaryKey && !merging && (sp.Changes || p.cfg.rowKind)
	sr.kindCol = sp.PrimaryKey && (sr.rawKV || p.cfg.rowKind || sp.diff)
	// Primary-key merges need the full row (keys, sequence fields, aggregated
	// columns); append reads need the projection plus the filter's fields.
	if merging {
		sr.valueCols = ts.Fields
		sr.unneeded = mergeUnneeded(ts, p)
		if !withMem && !sp.diff && lazyMerge(ts) && oldSchemas(sp, ts) {
			sr.poison = &castPoison{}
			sr.valueCols = append(slices.Clone(ts.Fields), castRowIDField)
		}
	} else {
		need := map[string]bool{}
		for _, f := range p.tableFields() {
			need[f.Name] = true
		}
		if sr.filter != nil {
			for _, i := range sr.filter.Fields() {
				if i < len(p.Schema.Fields) {
					need[p.Schema.Fields[i].Name] = true
				}
			}
		}
		for _, f := range ts.Fields {
			if need[f.Name] {
				sr.valueCols = append(sr.valueCols, f)
			}
		}
	}
	for _, f := range p.tableFields() {
		i, _, ok := types.FieldByName(sr.valueCols, f.Name)
		if !ok {
			return nil, fmt.Errorf("%w: column %q not in the schema of split %s", ErrInvalidScan, f.Name, sp.BucketPath)
		}
		sr.outIdx = append(sr.outIdx, i)
	}
	sr.outSchema = types.SchemaToArrow(p.Fields)
	if sr.filter != nil {
		sr.filterCol = filterColumns(sr.valueCols, p.Schema.Fields)
	}
	return sr, nil
}

// partitionDecides reports whether every field of p's filter is a
// partition key and the split's partition satisfies it: then every row of
// the split does (its partition columns hold the partition's values), and
// the rows need no filtering. A filter the partition fails is left to the
// rows (such splits are pruned when planned).
func partitionDecides(p *Plan, sp *Split) bool {
	if p.filter == nil || len(sp.PartitionValues) == 0 {
		return false
	}
	keys := p.Schema.PartitionKeys // the order of sp.PartitionValues
	if sp.schema != nil {
		keys = sp.schema.PartitionKeys
	}
	row := make([]any, len(p.Schema.Fields))
	for _, i := range p.filter.Fields() {
		if i >= len(p.Schema.Fields) {
			return false
		}
		k := slices.Index(keys, p.Schema.Fields[i].Name)
		if k < 0 || k >= len(sp.PartitionValues) {
			return false
		}
		row[i] = sp.PartitionValues[k]
	}
	return p.filter.Test(row)
}

// mergeUnneeded returns the ids of the value columns a merge read of ts
// for plan p can leave unread (nil when none): those that are neither
// projected nor filtered on, not primary or partition keys, and not named
// by any option (sequence.field, rowkind.field, fields.<f>.* keys and
// sequence-group values, ...), so they influence no other column. Java
// pushes the projection into its merge read likewise
// (MergeFileSplitRead.withReadType), so a column left out of --columns is
// never read, and a value in it that cannot be cast fails nothing.
func mergeUnneeded(ts *schema.TableSchema, p *Plan) map[int]bool {
	need := map[string]bool{}
	for _, f := range p.tableFields() {
		need[f.Name] = true
	}
	if p.filter != nil {
		for _, i := range p.filter.Fields() {
			if i < len(p.Schema.Fields) {
				need[p.Schema.Fields[i].Name] = true
			}
		}
	}
	for _, k := range ts.PrimaryKeys {
		need[k] = true
	}
	for _, k := range ts.PartitionKeys {
		need[k] = true
	}
	split := func(s string) {
		for _, n := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
			need[n] = true
		}
	}
	for k, v := range ts.Options {
		if rest, ok := strings.CutPrefix(k, "fields."); ok {
			if i := strings.LastIndexByte(rest, '.'); i > 0 {
				split(rest[:i])
			}
		}
		split(v)
	}
	var out map[int]bool
	for _, f := range ts.Fields {
		if !need[f.Name] {
			if out == nil {
				out = map[int]bool{}
			}
			out[f.ID] = true
		}
	}
	return out
}

// finish applies the row filter and the projection to a batch of value
// columns. It returns nil when no row is left.
func (sr *splitRead) finish(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	p := sr.plan
	if sr.filter != nil && rec.NumRows() > 0 {
		if sr.poison != nil {
			var names []string
			for _, i := range sr.filter.Fields() {
				if i < len(p.Schema.Fields) {
					names = append(names, p.Schema.Fields[i].Name)
				}
			}
			if err := sr.poison.check(rec, len(sr.valueCols)-1, names); err != nil {
				return nil, err
			}
		}
		filtered, err := filterRecord(rec, sr.filterCol, p.Schema.Fields, sr.filter, sr.mem)
		if err != nil {
			return nil, err
		}
		if filtered == nil {
			return nil, nil
		}
		defer filtered.Release()
		rec = filtered
	}
	if rec.NumRows() == 0 {
		return nil, nil
	}
	if sr.poison != nil {
		names := make([]string, len(p.tableFields()))
		for i, f := range p.tableFields() {
			names[i] = f.Name
		}
		if err := sr.poison.check(rec, len(sr.valueCols)-1, names); err != nil {
			return nil, err
		}
	}
	cols := make([]arrow.Array, 0, len(sr.outIdx)+1)
	if p.cfg.rowKind {
		var kinds arrow.Array
		if sr.kindCol {
			kinds = rec.Column(int(rec.NumCols()) - 1)
		}
		rk, err := rowKindArray(kinds, int(rec.NumRows()), sr.mem)
		if err != nil {
			return nil, fmt.Errorf("reader: split %s: %w", sr.sp.BucketPath, err)
		}
		defer rk.Release()
		cols = append(cols, rk)
	}
	for _, j := range sr.outIdx {
		cols = append(cols, rec.Column(j))
	}
	return array.NewRecordBatch(sr.outSchema, cols, rec.NumRows()), nil
}

// raw reads the files one after another without merging: append tables and
// raw-convertible primary-key buckets.
func (sr *splitRead) raw(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		// A point lookup of a raw-convertible bucket: each file is sorted
		// by key, so its looked-up rows are found by binary search.
		var points *pointKeys
		if sr.sp.PrimaryKey && !sr.rawKV {
			points = sr.pointKeys(sr.valueCols, true)
		}
		for i := range sr.sp.Files {
			f := &sr.sp.Files[i]
			records := sr.readFile(ctx, f, false)
			if points != nil {
				records = sr.keepPoints(records, points)
			}
			for rec, err := range records {
				if err == nil && sr.rawKV {
					rec = sr.kindLast(rec)
				}
				if !yield(rec, err) || err != nil {
					return
				}
			}
		}
	}
}

// merged reads every sorted run of a primary-key bucket and merges them:
// each level-0 file is a run of its own, each higher level is one run of
// files ordered by key, and each mem stream is one more run, newer than
// every file (see ReadSplitWith).
func (sr *splitRead) merged(ctx context.Context, mem []iter.Seq2[arrow.RecordBatch, error]) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		fields := sr.ts.Fields
		if sr.poison != nil {
			fields = sr.valueCols // with castRowIDField
		}
		if len(sr.unneeded) > 0 {
			// Columns left unread come as nulls: the merge must not hold
			// their NOT NULL against a retraction (Java's merge functions
			// take the projection and check the projected fields only).
			fields = slices.Clone(fields)
			for i := range fields {
				if sr.unneeded[fields[i].ID] {
					fields[i].Type.Nullable = true
				}
			}
		}
		cfg, err := merge.NewConfig(sr.ts.Options, fields, sr.ts.PrimaryKeys)
		if err != nil {
			yield(nil, err)
			return
		}
		thin, err := sr.ts.Options.DataFileThinMode()
		if err != nil {
			yield(nil, err)
			return
		}
		lookup, err := sr.ts.Options.LookupMerge()
		if err != nil {
			yield(nil, err)
			return
		}
		runsFiles, err := sr.sortedRuns()
		if err != nil {
			yield(nil, err)
			return
		}
		tg := sr.target(!thin)
		inFields, inSchema := tg.fields, tg.schema
		points := sr.pointKeys(inFields, thin)
		keyPred := sr.keyFilter(inFields, thin)
		pre := func(run iter.Seq2[arrow.RecordBatch, error]) iter.Seq2[arrow.RecordBatch, error] {
			switch {
			case points != nil:
				return sr.keepPoints(run, points)
			case keyPred != nil:
				return sr.keepKeys(run, keyPred, inFields)
			}
			return run
		}
		runs := make([]merge.Run, 0, len(runsFiles)+len(mem))
		defer func() {
			// Runs the merge never took (a selection failed below).
			for _, r := range runs {
				_ = r.Close()
			}
		}()
		// toRun makes the merge's run of seq. A point lookup selects a few
		// rows of each run, so its runs are selected at once into memory
		// (merge.RunOf): a pulled iterator (merge.RunFromSeq) would run each
		// run in a coroutine of its own, and growing those coroutines'
		// stacks cost a lookup about as much as the rest of it.
		toRun := func(seq iter.Seq2[arrow.RecordBatch, error]) (merge.Run, error) {
			if points == nil {
				return merge.RunFromSeq(seq), nil
			}
			var got []arrow.RecordBatch
			for rec, err := range seq {
				if err != nil {
					for _, b := range got {
						b.Release()
					}
					return nil, err
				}
				got = append(got, rec)
			}
			return merge.RunOf(got...), nil
		}
		for _, files := range runsFiles {
			r, err := toRun(pre(func(y func(arrow.RecordBatch, error) bool) {
				for _, f := range files {
					for rec, err := range sr.readFile(ctx, f, !thin) {
						if !y(rec, err) || err != nil {
							return
						}
					}
				}
			}))
			if err != nil {
				yield(nil, err)
				return
			}
			runs = append(runs, merge.AtLevel(r, int(files[0].Level)))
		}
		if len(mem) > 0 {
			for i, m := range mem {
				r, err := toRun(pre(sr.adaptMem(ctx, m, i, inFields, inSchema)))
				if err != nil {
					yield(nil, err)
					return
				}
				runs = append(runs, merge.AtLevel(r, -1))
			}
		}
		var keyCols []int
		if thin {
			for _, k := range sr.ts.TrimmedPrimaryKeys() {
				i, _, _ := types.FieldByName(inFields, k)
				keyCols = append(keyCols, i)
			}
		} else {
			for i := range sr.ts.TrimmedPrimaryKeys() {
				keyCols = append(keyCols, i)
			}
		}
		// WithRowKind keeps deletes, as Java's audit_log read (forceKeepDelete).
		opts := merge.Options{KeyColumns: keyCols, DropDeletes: !sr.plan.cfg.rowKind, BatchSize: sr.plan.cfg.batchSize, Lookup: lookup}
		if sr.kindCol {
			opts.Layout = merge.LayoutKindValues
		}
		taken := runs
		runs = nil // the merge closes them
		for rec, err := range merge.Merge(ctx, cfg, inSchema, taken, opts) {
			if err == nil && sr.kindCol {
				moved := moveColumn(rec, 0)
				rec.Release()
				rec = moved
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// sortedRuns groups the split's files into sorted runs, oldest data last:
// level 0 files one run each, then one run per higher level with its files
// ordered by minimum key.
func (sr *splitRead) sortedRuns() ([][]*manifest.DataFileMeta, error) {
	keyTypes := row.FieldTypes(sr.ts.TrimmedPrimaryKeyFields())
	byLevel := map[int32][]*manifest.DataFileMeta{}
	var levels []int32
	var runs [][]*manifest.DataFileMeta
	for i := range sr.sp.Files {
		f := &sr.sp.Files[i]
		if f.Level == 0 {
			runs = append(runs, []*manifest.DataFileMeta{f})
			continue
		}
		if _, ok := byLevel[f.Level]; !ok {
			levels = append(levels, f.Level)
		}
		byLevel[f.Level] = append(byLevel[f.Level], f)
	}
	slices.Sort(levels)
	for _, lv := range levels {
		files := byLevel[lv]
		keys := make(map[*manifest.DataFileMeta][]any, len(files))
		for _, f := range files {
			br, err := row.Deserialize(f.MinKey)
			if err != nil {
				return nil, fmt.Errorf("reader: min key of %s: %w", f.FileName, err)
			}
			k, err := row.Decode(keyTypes, br)
			if err != nil {
				return nil, fmt.Errorf("reader: min key of %s: %w", f.FileName, err)
			}
			keys[f] = k
		}
		slices.SortStableFunc(files, func(a, b *manifest.DataFileMeta) int {
			ka, kb := keys[a], keys[b]
			for i, t := range keyTypes {
				if c := types.Compare(t, ka[i], kb[i]); c != 0 {
					return c
				}
			}
			return 0
		})
		runs = append(runs, files)
	}
	return runs, nil
}

// kvFields returns the columns read from key-value files for a merge: the
// _KEY_ columns (unless thin mode), _SEQUENCE_NUMBER, _VALUE_KIND and the
// value columns, with the read schema's names and types.
func (sr *splitRead) kvFields(withKeys bool) []types.DataField {
	var out []types.DataField
	if withKeys {
		for _, k := range sr.ts.TrimmedPrimaryKeyFields() {
			out = append(out, types.DataField{ID: keyFieldIDOffset + k.ID, Name: keyFieldPrefix + k.Name, Type: k.Type})
		}
	}
	out = append(out,
		types.DataField{ID: sequenceNumberID, Name: sequenceNumberField, Type: types.BigInt().NotNull()},
		types.DataField{ID: valueKindID, Name: valueKindField, Type: types.TinyInt().NotNull()},
	)
	return append(out, sr.valueCols...)
}

// readFile reads one data file, evolves its columns to the read schema and
// applies its deletion vector. With kv it returns the key-value layout
// (kvFields), otherwise the value columns only.
func (sr *splitRead) readFile(ctx context.Context, f *manifest.DataFileMeta, withKeys bool) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		t := sr.sp.table
		fileSchema, err := t.schema(ctx, f.SchemaID)
		if err != nil {
			yield(nil, err)
			return
		}
		tg := sr.target(withKeys)
		target := tg.fields
		filePath := path.Join(sr.sp.BucketPath, f.FileName)
		opts := FileReadOptions{BatchSize: sr.plan.cfg.batchSize, Allocator: sr.mem, NullColumns: sr.unneeded, RowCount: f.RowCount}
		lc := sr.lookupCache(f)
		if !sr.kv && !sr.rawKV && sr.plan.filter != nil && lc == nil {
			// Rows the filter drops are not cast (finish filters again).
			opts.Filter, opts.FilterFields = sr.plan.filter, sr.plan.Schema.Fields
		}
		if sr.kv && sr.poison != nil {
			// Values that cannot be cast fail only rows the merge returns.
			for i := range sr.sp.Files {
				if &sr.sp.Files[i] == f {
					opts.RowIDBase = int64(i) << 40
				}
			}
			path := filePath
			opts.CastErrors = func(id int64, column string, err error) {
				sr.poison.add(id, column, fmt.Errorf("reader: data file %s: %w", path, err))
			}
		}
		if df, ok := sr.sp.DeletionFiles[f.FileName]; ok {
			opts.DeletionVector, err = deletionvector.ReadOne(ctx, t.fio, df.IndexFile, df.Offset, df.Length)
			if err != nil {
				yield(nil, fmt.Errorf("reader: deletion vector of %s: %w", filePath, err))
				return
			}
		}
		fio := t.fio
		if f.ExternalPath != nil && *f.ExternalPath != "" {
			// DataFilePathFactory.toPath: the stored location, verbatim.
			var done func() error
			fio, filePath, done, err = t.fio.OpenLocation(ctx, *f.ExternalPath)
			if err != nil {
				yield(nil, fmt.Errorf("reader: data file %s: %w", f.FileName, err))
				return
			}
			defer done()
		}
		if lc != nil {
			scope := fio.URL()
			opts.offered = func(want []types.DataField, sc *arrow.Schema, batchSize int) format.Reader {
				return lc.offered(scope, filePath, want, sc, batchSize)
			}
		}
		opts.target = tg
		records := ReadDataFile(ctx, fio, filePath, fileSchema, target, opts)
		if lc != nil {
			records = lc.file(ctx, sr.lookupKey(fio, filePath, f, tg), tg.schema, records)
		}
		for rec, err := range records {
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(rec, nil) {
				// The split read's consumers leave a batch they stop at to
				// the producer.
				rec.Release()
				return
			}
		}
	}
}

// lookupCache returns the cache a point lookup's merge read keeps its data
// files in, or nil: other reads, scans without a Cache, and lazy-cast
// reads (whose batches carry per-read row ids) read files directly.
func (sr *splitRead) lookupCache(f *manifest.DataFileMeta) *LookupCache {
	c := sr.plan.cfg.cache
	if c == nil || c.lookup == nil || (sr.plan.cfg.keys == nil && !sr.point) || sr.poison != nil || sr.rawKV || !sr.sp.PrimaryKey {
		return nil
	}
	// A raw read (raw-convertible bucket) caches the file's value columns
	// unfiltered: only when no column is cast, since a cast read drops the
	// rows the filter rejects before casting (FileReadOptions.Filter).
	if !sr.kv && f.SchemaID != sr.ts.ID {
		return nil
	}
	if !c.lookup.enabled() {
		return nil
	}
	return c.lookup
}

// lookupKey names the read of f at filePath (through fio) with target for
// the lookup cache.
func (sr *splitRead) lookupKey(fio *fileio.FileIO, filePath string, f *manifest.DataFileMeta, tg *fileTarget) string {
	dv := ""
	if df, ok := sr.sp.DeletionFiles[f.FileName]; ok {
		dv = df.IndexFile + "@" + strconv.FormatInt(int64(df.Offset), 10) + "+" + strconv.FormatInt(int64(df.Length), 10)
	}
	return lookupKey(fio.URL(), filePath, f.SchemaID, tg.cols, sr.unneeded, dv)
}

// FileReadOptions configure ReadDataFile.
type FileReadOptions struct {
	// BatchSize is the most rows per batch; 0 means the format's default
	// (format.DefaultBatchSize).
	BatchSize int
	// Allocator allocates the batches; nil means memory.DefaultAllocator.
	Allocator memory.Allocator
	// DeletionVector, when set, removes the rows whose file positions it
	// holds (the file's deletion vector, deletionvector.ReadOne).
	DeletionVector *deletionvector.DeletionVector
	// NullColumns holds ids of target fields the caller does not need: they
	// are not read from the file (so a cast that would fail on them does
	// not fail the read) and come back all null. Key fields (_KEY_*) are
	// always read.
	NullColumns map[int]bool
	// RowCount, when positive, is the file's row count from its data file
	// meta (DataFileMeta.rowCount): a file that ends after fewer or more
	// rows is damaged (an Avro file cut at a block boundary still decodes)
	// and the read fails with format.ErrCorrupt naming the file.
	RowCount int64
	// Filter, when set, is a row filter over FilterFields (field indexes)
	// whose columns are among target (matched by name). In a file with
	// columns to cast, the rows it rejects are dropped before the other
	// columns are cast, so a value that cannot be cast fails the read only
	// in a row the filter selects (Java casts a field only when it is read).
	// It is not an exact filter for the caller: rows of files without
	// casts are all returned.
	Filter       predicate.Predicate
	FilterFields []types.DataField
	// CastErrors, when set, receives the error of each value that cannot
	// be cast (naming the column and the row) instead of failing the read:
	// the value reads as null, and target fields with the internal row-id
	// field id are filled with RowIDBase + the row's file position (0-based)
	// so that the caller can tell later whether that row is returned.
	CastErrors func(rowID int64, column string, err error)
	RowIDBase  int64

	// offered, when set, is asked once the read starts for a reader of the
	// file's rows as its writer handed them over (LookupCache.Offer), of
	// the fields a format reader would be given (and their Arrow schema,
	// nil when not built); nil reads the file.
	offered func(want []types.DataField, sc *arrow.Schema, batchSize int) format.Reader
	// target, when set, is the split read's layout whose fields are the
	// target: evolve's result is taken from it (without NullColumns).
	target *fileTarget
}

// ReadDataFile reads the data file at filePath (relative to fio's root; its
// extension names the format) that was written with fileSchema, as batches
// of the target columns (schema types.SchemaToArrow(target)) — the per-file
// schema evolution of Java's SchemaEvolutionUtil / KeyValueFileReaderFactory
// that every split read does. Columns are matched by field id: a table
// column is read under the name it has in fileSchema; a column whose type
// changed (nested changes included) is read in its file type and cast to
// the target type with format/cast (Java's CastExecutors values); a column
// the file lacks is all null. Target
// may hold the system columns of key-value files (datafile.KeyValueFields:
// _KEY_<f> with id KeyFieldIDStart + id of f, _SEQUENCE_NUMBER,
// _VALUE_KIND), so a primary-key file is read in the key-value layout of a
// newer schema. Batches left empty by the deletion vector are skipped.
//
// The consumer owns each batch and must Release it; stopping early is
// allowed. On error the iterator yields (nil, err) once and stops: errors of
// opening the file name it; format.ErrUnsupportedFormat for an extension no
// reader handles; the format's errors (format.ErrCorrupt, ...); a value Java
// fails to cast is cast.ErrInvalid naming the file and column (a type pair
// without a cast cast.ErrUnsupported, also format.ErrSchemaMismatch).
func ReadDataFile(ctx context.Context, fio *fileio.FileIO, filePath string, fileSchema *schema.TableSchema, target []types.DataField, opts FileReadOptions) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		mem := opts.Allocator
		if mem == nil {
			mem = memory.DefaultAllocator
		}
		var ev *evolved
		if opts.target != nil && len(opts.NullColumns) == 0 {
			ev = opts.target.evolve(fileSchema)
		} else {
			want, slot, from := evolve(target, fileSchema, opts.NullColumns)
			ev = &evolved{want: want, slot: slot, from: from, targetSchema: types.SchemaToArrow(target)}
		}
		want := ev.want
		var rd format.Reader
		if opts.offered != nil {
			rd = opts.offered(want, ev.wantSchema, opts.BatchSize)
		}
		if rd == nil {
			fm, err := formatFor(filePath)
			if err != nil {
				yield(nil, err)
				return
			}
			file, err := fio.Open(ctx, filePath)
			if err != nil {
				yield(nil, fmt.Errorf("reader: data file %s: %w", filePath, err))
				return
			}
			defer file.Close()
			if rd, err = fm.NewReader(ctx, file, filePath, want, format.ReadOptions{BatchSize: opts.BatchSize, Allocator: mem}); err != nil {
				yield(nil, err)
				return
			}
		}
		defer rd.Close()
		fb := &fileBatch{target: ev.targetSchema, fields: target, slot: ev.slot, from: ev.from,
			dv: opts.DeletionVector, filter: opts.Filter, fFields: opts.FilterFields, mem: mem,
			deferred: opts.CastErrors, rowBase: opts.RowIDBase}
		if fb.filter != nil {
			fb.colOf = filterColumns(target, opts.FilterFields)
		}
		var rows int64
		for {
			b, err := rd.Next(ctx)
			if errors.Is(err, io.EOF) {
				if opts.RowCount > 0 && rows != opts.RowCount {
					yield(nil, fmt.Errorf("reader: data file %s: %w: %d rows, its data file meta says %d", filePath, format.ErrCorrupt, rows, opts.RowCount))
				}
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			rows += b.Record.NumRows()
			rec, err := fb.apply(b.Record, b.FirstRow)
			b.Record.Release()
			if err != nil {
				yield(nil, fmt.Errorf("reader: data file %s: %w", filePath, err))
				return
			}
			if rec == nil {
				continue
			}
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// evolve maps the target columns (read schema) onto a data file written with
// fileSchema, matching by field id as Java's SchemaEvolutionUtil does. It
// returns the fields to ask the file format for (file names, read types),
// per target column its index in that list or -1 when the file lacks the
// column (it is then all null), and per target column the file's type when
// the column is read in that type and cast by assemble (nil otherwise).
//
// A column whose type changed (ALTER TABLE ... MODIFY, nested fields added,
// renamed or retyped) is read in the file's type and cast with cast.Array,
// Java's CastExecutors / SchemaEvolutionUtil semantics, whatever the format.
func evolve(target []types.DataField, fileSchema *schema.TableSchema, skip map[int]bool) ([]types.DataField, []int, []*types.DataType) {
	var want []types.DataField
	slot := make([]int, len(target))
	from := make([]*types.DataType, len(target))
	for i, f := range target {
		name, typ := f.Name, f.Type
		switch {
		case f.ID == sequenceNumberID || f.ID == valueKindID:
		case f.ID >= keyFieldIDOffset && f.ID < sequenceNumberID-16:
			_, ff, ok := types.FieldByID(fileSchema.Fields, f.ID-keyFieldIDOffset)
			if !ok {
				slot[i] = -1
				continue
			}
			name = keyFieldPrefix + ff.Name
			typ, from[i] = fileType(f.Type, ff.Type)
		default:
			_, ff, ok := types.FieldByID(fileSchema.Fields, f.ID)
			if !ok || skip[f.ID] {
				slot[i] = -1
				continue
			}
			name = ff.Name
			typ, from[i] = fileType(f.Type, ff.Type)
		}
		slot[i] = len(want)
		want = append(want, types.DataField{ID: f.ID, Name: name, Type: typ, Description: f.Description})
	}
	return want, slot, from
}

// fileType returns the type to read a column of table type t stored as
// file type ft in, and ft when the result must be cast to t: a type change
// Java casts (cast.Supported, nested ROW/ARRAY/MAP changes included) is
// read in the file's type and cast; other differences are left to the
// format reader, which refuses them.
func fileType(t, ft types.DataType) (types.DataType, *types.DataType) {
	if cast.Identical(ft, t) || !cast.Supported(ft, t) {
		return t, nil
	}
	ft.Nullable = t.Nullable
	return ft, &ft
}

// Filter returns the plan's row filter over the fields of p.Schema (field
// indexes of p.Schema.Fields), or nil when the scan has none. It is the
// filter ReadSplit applies exactly to every row; callers that read rows of
// their own alongside a split (the real-time layer's memory) may use it as
// a pruning hint.
func (p *Plan) Filter() predicate.Predicate { return p.filter }
