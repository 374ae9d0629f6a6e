package compaction

// Changelog production of primary-key compactions (changelog-producer =
// lookup and full-compaction): Java ChangelogMergeTreeRewriter with
// LookupChangelogMergeFunctionWrapper (lookup) and
// FullChangelogMergeFunctionWrapper (full-compaction). The merge itself is
// the table's merge.Merger; a changelogEmitter only compares each key's
// merged result with the key's value before the compaction and writes the
// changelog rows that tell the difference into changelog files.

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/datafile"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// changelogMode is how a table's compactions produce changelog.
type changelogMode uint8

const (
	changelogOff    changelogMode = iota
	changelogLookup               // changelog-producer = lookup
	changelogFull                 // changelog-producer = full-compaction
)

// Option keys of the changelog row deduplication (Java CoreOptions
// CHANGELOG_PRODUCER_ROW_DEDUPLICATE and
// CHANGELOG_PRODUCER_ROW_DEDUPLICATE_IGNORE_FIELDS).
const (
	KeyChangelogRowDeduplicate             = "changelog-producer.row-deduplicate"
	KeyChangelogRowDeduplicateIgnoreFields = "changelog-producer.row-deduplicate-ignore-fields"
)

// changelogConfig is the changelog production of a primary-key table.
type changelogConfig struct {
	mode changelogMode
	// dedup skips -U/+U pairs whose values are equal (row-deduplicate);
	// compare lists the KeyValue-layout columns compared then (the value
	// columns without the ignored fields).
	dedup   bool
	compare []int
}

// newChangelogConfig reads the changelog options of ts, whose KeyValue
// layout has nk key columns. Errors wrap schema.ErrInvalidOption (malformed
// options, an ignored field that is not a column).
func newChangelogConfig(ts *schema.TableSchema, nk int) (changelogConfig, error) {
	var c changelogConfig
	cp, err := ts.Options.ChangelogProducer()
	if err != nil {
		return c, err
	}
	switch cp {
	case schema.ChangelogLookup:
		c.mode = changelogLookup
	case schema.ChangelogFullCompaction:
		c.mode = changelogFull
	default:
		return c, nil
	}
	if c.dedup, err = ts.Options.Bool(KeyChangelogRowDeduplicate, false); err != nil {
		return c, err
	}
	var ignore []string
	if s := ts.Options.String(KeyChangelogRowDeduplicateIgnoreFields, ""); s != "" {
		for _, f := range strings.Split(s, ",") {
			ignore = append(ignore, strings.TrimSpace(f))
		}
	}
	for _, name := range ignore {
		if !slices.ContainsFunc(ts.Fields, func(f types.DataField) bool { return f.Name == name }) {
			return c, fmt.Errorf("%w: %s: %q is not a column", schema.ErrInvalidOption, KeyChangelogRowDeduplicateIgnoreFields, name)
		}
	}
	for i, f := range ts.Fields {
		if !slices.Contains(ignore, f.Name) {
			c.compare = append(c.compare, nk+2+i)
		}
	}
	return c, nil
}

// changelogLayout returns the layout of the changelog files a compaction
// writes at level (Java createRollingChangelogFileWriter: the output level,
// file source APPEND).
func (t *table) changelogLayout(level int) (*datafile.Layout, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if l, ok := t.clLayouts[level]; ok {
		return l, nil
	}
	l, err := datafile.NewLayout(t.ts, datafile.Config{
		Level: level, Source: manifest.SourceAppend, RowGroupBytes: defaultRowGroupBytes,
		Allocator: t.mem, Now: t.now, Changelog: true,
	})
	if err != nil {
		return nil, err
	}
	if t.clLayouts == nil {
		t.clLayouts = map[int]*datafile.Layout{}
	}
	t.clLayouts[level] = l
	return l, nil
}

// rowRef is row Row of Batch, a batch in the KeyValue layout.
type rowRef struct {
	Batch arrow.RecordBatch
	Row   int
}

// changelogEmitter collects the changelog rows of a compaction and writes
// them, in the KeyValue layout, with a RollingWriter. Rows are buffered as
// one-row slices and written in batches. Not safe for concurrent use.
type changelogEmitter struct {
	cfg    changelogConfig
	nk     int
	sc     *arrow.Schema
	mem    memory.Allocator
	w      *datafile.RollingWriter
	batch  int
	rows   []arrow.RecordBatch
	kinds  []int8
	output int64 // rows written
}

// isAdd reports whether row r is +I or +U.
func (e *changelogEmitter) isAdd(r rowRef) bool {
	k := r.Batch.Column(e.nk + 1).(*array.Int8).Value(r.Row)
	return k == int8(row.RowKindInsert) || k == int8(row.RowKindUpdateAfter)
}

// equalValues compares the value columns of a and b that row-deduplicate
// compares.
func (e *changelogEmitter) equalValues(a, b rowRef) bool {
	for _, c := range e.cfg.compare {
		if !array.SliceEqual(a.Batch.Column(c), int64(a.Row), int64(a.Row)+1, b.Batch.Column(c), int64(b.Row), int64(b.Row)+1) {
			return false
		}
	}
	return true
}

// Emit adds the changelog of one key (Java
// LookupChangelogMergeFunctionWrapper.setChangelog and
// FullChangelogMergeFunctionWrapper.getResult): before is the key's value
// before the compaction (nil: none), after its merged result. No previous
// value (or a retraction): +I of after when it is an addition. A previous
// value: -D of before when after is a retraction, else -U of before and +U
// of after unless row-deduplicate finds their values equal. Each changelog
// row keeps the key and sequence number of the record it copies.
func (e *changelogEmitter) Emit(ctx context.Context, before *rowRef, after rowRef) error {
	switch {
	case before == nil || !e.isAdd(*before):
		if e.isAdd(after) {
			return e.add(ctx, after, row.RowKindInsert)
		}
	case !e.isAdd(after):
		return e.add(ctx, *before, row.RowKindDelete)
	case !e.cfg.dedup || !e.equalValues(*before, after):
		if err := e.add(ctx, *before, row.RowKindUpdateBefore); err != nil {
			return err
		}
		return e.add(ctx, after, row.RowKindUpdateAfter)
	}
	return nil
}

func (e *changelogEmitter) add(ctx context.Context, r rowRef, kind byte) error {
	e.rows = append(e.rows, r.Batch.NewSlice(int64(r.Row), int64(r.Row)+1))
	e.kinds = append(e.kinds, int8(kind))
	if len(e.rows) >= e.batch {
		return e.flush(ctx)
	}
	return nil
}

// flush writes the buffered rows.
func (e *changelogEmitter) flush(ctx context.Context) error {
	if len(e.rows) == 0 {
		return nil
	}
	rec, err := concatRows(e.sc, e.rows, e.mem)
	e.release()
	if err != nil {
		return err
	}
	defer rec.Release()
	b := array.NewInt8Builder(e.mem)
	b.AppendValues(e.kinds, nil)
	kinds := b.NewArray()
	b.Release()
	defer kinds.Release()
	e.kinds = e.kinds[:0]
	cols := slices.Clone(rec.Columns())
	cols[e.nk+1] = kinds
	out := array.NewRecordBatch(e.sc, cols, rec.NumRows())
	defer out.Release()
	e.output += out.NumRows()
	return e.w.Write(ctx, out)
}

func (e *changelogEmitter) release() {
	for _, r := range e.rows {
		r.Release()
	}
	e.rows = e.rows[:0]
}

// changelogStep reports whether a rewrite at outputLevel of sections
// produces changelog (ChangelogMergeTreeRewriter.rewriteChangelog): lookup
// when a level-0 file reaches a level above 0
// (rewriteLookupChangelog), full-compaction when the output is the maximum
// level (FullChangelogMergeTreeCompactRewriter).
func (t *table) changelogStep(sections [][]SortedRun, outputLevel, maxLevel int) bool {
	switch t.changelog.mode {
	case changelogLookup:
		if outputLevel == 0 {
			return false
		}
		for _, s := range sections {
			if len(level0Files(s)) > 0 {
				return true
			}
		}
	case changelogFull:
		return outputLevel == maxLevel
	}
	return false
}

// upgradeRewrites reports whether an upgrade of a file that produces
// changelog also rewrites it (LookupMergeTreeCompactRewriter.upgradeStrategy
// CHANGELOG_WITH_REWRITE: a merge engine other than deduplicate, or
// sequence.field, below the maximum level; full-compaction never rewrites).
func (t *table) upgradeRewrites(outputLevel, maxLevel int) bool {
	return t.changelog.mode == changelogLookup && outputLevel != maxLevel &&
		(t.mergeCfg.Engine() != merge.Deduplicate || len(t.mergeCfg.SequenceFields()) > 0)
}

// emitter returns the job's changelogEmitter for outputLevel, opening it on
// first use.
func (j *bucketJob) emitter(outputLevel int) (*changelogEmitter, error) {
	if j.cl != nil {
		return j.cl, nil
	}
	l, err := j.t.changelogLayout(outputLevel)
	if err != nil {
		return nil, err
	}
	j.cl = &changelogEmitter{
		cfg: j.t.changelog, nk: j.t.nk, sc: j.t.kvSchema, mem: j.t.mem, batch: j.t.batchSize,
		w: datafile.NewRollingWriter(j.t.fio, j.dir, l, j.names, 0),
	}
	return j.cl, nil
}

// finishChangelog flushes the job's changelog files; nil when it wrote none.
func (j *bucketJob) finishChangelog(ctx context.Context) ([]manifest.DataFileMeta, error) {
	if j.cl == nil {
		return nil, nil
	}
	e := j.cl
	j.cl = nil
	if err := e.flush(ctx); err != nil {
		e.release()
		_ = e.w.Abort(context.WithoutCancel(ctx))
		return nil, err
	}
	return j.flush(ctx, e.w)
}

// abortChangelog drops the job's unfinished changelog files.
func (j *bucketJob) abortChangelog(ctx context.Context) {
	if j.cl != nil {
		j.cl.release()
		_ = j.cl.w.Abort(ctx)
		j.cl = nil
	}
}

// beforeRuns are the sorted runs whose records are a key's value before
// the compaction of section, in the order a lookup asks them: lookup — the
// section's levels above 0, lowest level first, then the levels above the
// output (LookupMergeFunction.pickHighLevel, then LookupLevels.lookup
// from outputLevel + 1); full-compaction — the section's maximum level
// (the top-level record of FullChangelogMergeFunctionWrapper). A sorted
// run of a section may hold files of several levels (IntervalPartition):
// the files are regrouped by their own level, in key order.
func (j *bucketJob) beforeRuns(section []SortedRun, lk *lookups) ([]LevelSortedRun, error) {
	byLevel := map[int][]manifest.DataFileMeta{}
	for _, r := range section {
		for _, f := range r.Files {
			lvl := int(f.Level)
			if (j.t.changelog.mode == changelogLookup && lvl > 0) || (j.t.changelog.mode == changelogFull && lvl == lk.maxLevel) {
				byLevel[lvl] = append(byLevel[lvl], f)
			}
		}
	}
	out := make([]LevelSortedRun, 0, len(byLevel)+len(lk.above))
	for lvl, files := range byLevel {
		var err error
		slices.SortFunc(files, func(a, b manifest.DataFileMeta) int {
			ka, _, e1 := j.keys.Keys(&a)
			kb, _, e2 := j.keys.Keys(&b)
			if e1 != nil || e2 != nil {
				err = errors.Join(e1, e2)
				return 0
			}
			return j.keys.Compare(ka, kb)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, LevelSortedRun{Level: lvl, Run: SortedRun{Files: files}})
	}
	slices.SortFunc(out, func(a, b LevelSortedRun) int { return a.Level - b.Level })
	if j.t.changelog.mode == changelogLookup {
		out = append(out, lk.above...)
	}
	return out, nil
}

// changedFiles are the files of section whose keys get changelog: lookup —
// the level-0 files (containLevel0); full-compaction — the files below the
// maximum level (a key found on the maximum level only is unchanged).
func (j *bucketJob) changedFiles(section []SortedRun, maxLevel int) []manifest.DataFileMeta {
	if j.t.changelog.mode == changelogLookup {
		return level0Files(section)
	}
	var out []manifest.DataFileMeta
	for _, r := range section {
		for _, f := range r.Files {
			if int(f.Level) != maxLevel {
				out = append(out, f)
			}
		}
	}
	return out
}

// rewriteChangelog merges the sections of step as rewrite does and writes
// the changelog of every changed key (ChangelogMergeTreeRewriter
// .rewriteOrProduceChangelog); with data it also writes the merged records
// as files at outputLevel (retractions dropped when step.DropDeletes) and
// returns them.
func (j *bucketJob) rewriteChangelog(ctx context.Context, step Step, outputLevel int, lk *lookups, data bool) (_ []manifest.DataFileMeta, err error) {
	t := j.t
	e, err := j.emitter(outputLevel)
	if err != nil {
		return nil, err
	}
	var w *datafile.RollingWriter
	if data {
		l, lerr := t.layout(outputLevel)
		if lerr != nil {
			return nil, lerr
		}
		w = datafile.NewRollingWriter(t.fio, j.dir, l, j.names, 0)
		defer func() {
			if err != nil {
				_ = w.Abort(context.WithoutCancel(ctx))
			}
		}()
	}
	for _, section := range step.Sections {
		if err := j.changelogSection(ctx, section, outputLevel, lk, e, w, step); err != nil {
			return nil, err
		}
	}
	if w == nil {
		return nil, nil
	}
	return j.flush(ctx, w)
}

// changelogSection merges one section, emits the changelog of its changed
// keys and writes the merged records to w (when not nil). A lookup of a
// merge engine other than deduplicate (or with sequence.field) merges each
// level-0 key's version above the output level into the result
// (LookupChangelogMergeFunctionWrapper: lookup, insertInto); first-row
// writes only keys no level above holds and emits +I for keys no level
// above 0 holds (FirstRowMergeFunctionWrapper). With step.MarkDeleted
// (deletion vectors) every engine merges the version found above the
// output level in, and that version is marked deleted once the section is
// merged, so that the values before are those of the levels as they were.
func (j *bucketJob) changelogSection(ctx context.Context, section []SortedRun, outputLevel int, lk *lookups, e *changelogEmitter, w *datafile.RollingWriter, step Step) error {
	t := j.t
	dropDeletes := step.DropDeletes
	runs := make([]merge.Run, 0, len(section)+1)
	for _, r := range section {
		runs = append(runs, j.runsOf(ctx, r)...)
	}
	var marks []DVHit
	switch {
	case step.MarkDeleted:
		runs = append(runs, merge.AtLevel(j.lookedUp(ctx, level0Files(section), lk.kvLookup(), &marks), outputLevel+1))
	case t.lookupMerge && t.changelog.mode == changelogLookup:
		runs = append(runs, merge.AtLevel(j.lookedUp(ctx, level0Files(section), lk.kvLookup(), nil), outputLevel+1))
	}
	beforeRuns, err := j.beforeRuns(section, lk)
	if err != nil {
		return err
	}
	before := NewDVLookup(j.keys, t.keyTypes, beforeRuns, j.lookupKV, j.dvs)
	defer before.Close()
	nextKey, stop := iter.Pull2(j.level0Keys(ctx, j.changedFiles(section, lk.maxLevel)))
	defer stop()
	var changed []any // next changed key, nil at the end
	more := true
	advance := func() error {
		k, err, ok := nextKey()
		if err != nil {
			return err
		}
		changed, more = k, ok
		return nil
	}
	if err := advance(); err != nil {
		return err
	}
	var keep []bool // first-row: rows written
	for b, merr := range t.mergers[0].Merge(ctx, runs) {
		if merr != nil {
			return merr
		}
		out := b
		if !out.Schema().Equal(t.kvSchema) {
			out = array.NewRecordBatch(t.kvSchema, b.Columns(), b.NumRows())
			b.Release()
		}
		err := func() error {
			keep = keep[:0]
			for i := range int(out.NumRows()) {
				k, err := keyView(out, i, t.keyTypes)
				if err != nil {
					return err
				}
				if t.firstRow {
					hit, found, err := before.Find(ctx, k)
					if err != nil {
						return err
					}
					keep = append(keep, !found || hit.Level <= outputLevel)
					if !found {
						r := rowRef{Batch: out, Row: i}
						if err := e.add(ctx, r, byte(r.Batch.Column(e.nk+1).(*array.Int8).Value(i))); err != nil {
							return err
						}
					}
					continue
				}
				for more && j.keys.Compare(changed, k) < 0 {
					if err := advance(); err != nil {
						return err
					}
				}
				if !more || j.keys.Compare(changed, k) != 0 {
					continue
				}
				hit, found, err := before.Find(ctx, k)
				if err != nil {
					return err
				}
				var prev *rowRef
				if found {
					prev = &rowRef{Batch: hit.Batch, Row: hit.Row}
				}
				if err := e.Emit(ctx, prev, rowRef{Batch: out, Row: i}); err != nil {
					return err
				}
			}
			if w == nil {
				return nil
			}
			if !dropDeletes && !t.firstRow {
				return w.Write(ctx, out)
			}
			return writeFiltered(ctx, w, out, func(i int) (bool, error) {
				if t.firstRow && !keep[i] {
					return false, nil
				}
				return !dropDeletes || e.isAdd(rowRef{Batch: out, Row: i}), nil
			})
		}()
		out.Release()
		if err != nil {
			return err
		}
	}
	for _, m := range marks {
		if err := j.dvs.NotifyNewDeletion(m.File, m.Position); err != nil {
			return fmt.Errorf("compaction: mark %s row %d deleted: %w", m.File, m.Position, err)
		}
	}
	return nil
}

// checkChangelog refuses the changelog productions the package does not
// implement: full-compaction with deletion vectors (Java's
// FullChangelogMergeTreeCompactRewriter keeps no deletion vectors), and
// first-row with full-compaction, which Java refuses too
// (SchemaValidation: "Only support 'none' and 'lookup' changelog-producer
// on FIRST_ROW merge engine").
func checkChangelog(cp schema.ChangelogProducer, engine schema.MergeEngine, dv bool) error {
	if cp != schema.ChangelogLookup && cp != schema.ChangelogFullCompaction {
		return nil
	}
	switch {
	case dv && cp == schema.ChangelogFullCompaction:
		return fmt.Errorf("%w: changelog-producer = %s with deletion-vectors.enabled = true", ErrUnsupported, cp)
	case engine == schema.MergeFirstRow && cp != schema.ChangelogLookup:
		return fmt.Errorf("%w: changelog-producer = %s with merge-engine = first-row (Java allows only none and lookup)", ErrUnsupported, cp)
	}
	return nil
}
