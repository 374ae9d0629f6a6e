package maintaintest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/compaction"
	"github.com/paimon-go/paimon/expire"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/rowfmt"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/tag"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

var (
	flagSeeds = flag.Int("maintain.seeds", 0, "model test: run seeds 1..N per variant instead of the default fixed set")
	flagSeed  = flag.Uint64("maintain.seed", 0, "model test: run only this seed (to reproduce a failure)")
	flagSteps = flag.Int("maintain.steps", 0, "model test: steps per seed (0: the default)")
)

// defaultSeeds run by default: fast enough for every `go test`.
var defaultSeeds = []uint64{1, 2}

const defaultSteps = 30

func seedList() []uint64 {
	switch {
	case *flagSeed != 0:
		return []uint64{*flagSeed}
	case *flagSeeds > 0:
		out := make([]uint64, *flagSeeds)
		for i := range out {
			out[i] = uint64(i + 1)
		}
		return out
	}
	return defaultSeeds
}

// TestMaintain is the model-based test of issue 6: random writes, commits,
// compactions, expirations, tag operations and rollbacks, checked after every
// step against the model (see package doc).
func TestMaintain(t *testing.T) {
	steps := defaultSteps
	if *flagSteps > 0 {
		steps = *flagSteps
	}
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			for _, seed := range seedList() {
				t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
					newRun(t, v, seed).steps(steps)
				})
			}
		})
	}
}

// snapState is what the model expects of one snapshot.
type snapState struct {
	// committed is the merged state of every row committed.
	committed state
	// visible is what a batch read returns: committed, except for tables
	// that skip level 0 (deletion vectors, first-row), where it is the state
	// as of the last compaction that moved every level-0 file up.
	visible state
	// dirty: the snapshot has level-0 files a batch read skips.
	dirty bool
}

type tagged struct {
	id int64
	st snapState
}

// run is one seed of one variant: the table, the model and the driver.
type run struct {
	t    *testing.T
	ctx  context.Context
	v    variant
	r    *rand.Rand
	g    *generator
	tbl  *catalog.Table
	fio  *fileio.FileIO
	ts   *schema.TableSchema
	sm   *snapshot.Manager
	opts map[string]string // table options, for messages

	w          *writer.Write // the open writer, kept across commits
	wWriteOnly bool

	cur     snapState
	latest  int64
	snaps   map[int64]snapState
	tags    map[string]tagged
	nextTag int
	log     []string
	stats   map[string]int // what the steps did, logged at the end
}

const (
	writeUser   = "maintain-writer"
	compactUser = "maintain-compactor"
)

func newRun(t *testing.T, v variant, seed uint64) *run {
	r := rand.New(rand.NewPCG(seed, 0x6d61696e))
	opts := v.options()
	opts[compaction.KeyNumSortedRunCompactionTrigger] = strconv.Itoa(2 + r.IntN(2))
	if n := r.IntN(3); n > 0 {
		opts[schema.KeyFullCompactionDeltaCommits] = strconv.Itoa(2 * n)
	}
	// Manifest merging by threshold at every commit: never (the defaults),
	// minor merges from two manifests on, or a full compaction every time.
	switch r.IntN(3) {
	case 1:
		opts["manifest.merge-min-count"] = "2"
	case 2:
		opts["manifest.full-compaction-threshold-size"] = "1 b"
	}
	s := catalog.Schema{Fields: tableFields(), PartitionKeys: []string{"part"}, PrimaryKeys: []string{"part", "id"}, Options: opts}
	tbl := tabletest.NewTable(t, "", s)
	ru := &run{
		t: t, ctx: context.Background(), v: v, r: r, g: &generator{r: r, v: v},
		tbl: tbl, fio: tbl.FileIO, ts: tbl.Schema, sm: snapshot.NewManager(tbl.FileIO),
		opts: opts, cur: snapState{committed: state{}, visible: state{}},
		snaps: map[int64]snapState{}, tags: map[string]tagged{}, stats: map[string]int{},
	}
	t.Cleanup(ru.closeWriter)
	return ru
}

func (ru *run) logf(format string, args ...any) {
	ru.log = append(ru.log, fmt.Sprintf(format, args...))
}

// fatalf stops the test with the step history.
func (ru *run) fatalf(format string, args ...any) {
	ru.t.Helper()
	hist := ru.log
	if len(hist) > 40 {
		hist = hist[len(hist)-40:]
	}
	ru.t.Fatalf("%s\ntable options %v\nsteps (last %d):\n  %s", fmt.Sprintf(format, args...), ru.opts, len(hist), strings.Join(hist, "\n  "))
}

func (ru *run) closeWriter() {
	if ru.w != nil {
		ru.w.Close()
		ru.w = nil
	}
}

func (ru *run) steps(n int) {
	for i := 1; i <= n; i++ {
		switch x := ru.r.IntN(100); {
		case ru.cur.dirty:
			// A table that skips level 0 has level-0 files (a write-only
			// writer or a rollback left them): only a compaction makes the
			// next writer's visible rows defined, as it compacts only the
			// buckets it writes.
			ru.compact(true)
		case ru.latest == 0 || x < 50:
			ru.writeCommit()
		case x < 58:
			ru.compact(false)
		case x < 62:
			ru.compactManifests()
		case x < 72 || len(ru.snaps) > 6:
			ru.expire()
		case x < 80:
			ru.createTag()
		case x < 86:
			ru.deleteTag()
		default:
			ru.rollback()
		}
		ru.check(i)
	}
	ru.t.Logf("%d steps: %v", n, ru.stats)
}

// --- steps -----------------------------------------------------------------

func (ru *run) writeCommit() {
	if ru.w != nil && ru.r.IntN(2) == 0 {
		ru.closeWriter()
		ru.logf("close writer")
	}
	if ru.w == nil {
		ts, wo := ru.ts, ru.r.IntN(6) == 0
		if wo {
			ts = withOptions(ru.ts, schema.KeyWriteOnly, "true")
		}
		// Background compactions (Java's stream write) for tables whose
		// reads merge every level: their COMPACT snapshots change no rows,
		// whenever they land. (Reads of the other tables would see level-0
		// files move up at times the model cannot know.)
		var wopts []writer.Option
		async := 0
		if !wo && !ru.v.skipsLevel0() && ru.r.IntN(4) == 0 {
			async = 1 + ru.r.IntN(2)
			wopts = append(wopts, writer.WithAsyncCompaction(async))
		}
		w, err := writer.New(ru.fio, ts, writeUser, wopts...)
		if errors.Is(err, writer.ErrUnsupported) {
			ru.t.Skipf("writer does not support this table yet: %v", err)
		}
		if err != nil {
			ru.fatalf("writer.New: %v", err)
		}
		ru.w, ru.wWriteOnly = w, wo
		ru.logf("new writer (write-only=%v, async compactions=%d)", wo, async)
	}
	pending := cloneState(ru.cur.committed)
	var desc []string
	for b := 1 + ru.r.IntN(3); b > 0; b-- {
		recs := make([]record, 1+ru.r.IntN(25))
		for i := range recs {
			recs[i] = ru.g.record(pending)
			ru.v.apply(pending, recs[i])
		}
		rec := ru.batch(recs)
		err := ru.w.Write(ru.ctx, rec)
		rec.Release()
		if err != nil {
			ru.fatalf("write: %v", err)
		}
		desc = append(desc, ru.describe(recs))
	}
	msgs, err := ru.w.PrepareCommit(ru.ctx)
	if err != nil {
		ru.fatalf("PrepareCommit: %v", err)
	}
	cm, err := commit.New(ru.fio, ru.ts, writeUser)
	if err != nil {
		ru.fatalf("commit.New: %v", err)
	}
	id, err := cm.Commit(ru.ctx, commit.BatchIdentifier, msgs)
	cm.Close()
	if err != nil {
		ru.fatalf("commit: %v", err)
	}
	ru.logf("write+commit -> snapshot %d: %s", id, strings.Join(desc, " | "))
	ru.stats["write commits"]++
	if id == 0 {
		if !reflect.DeepEqual(pending, ru.cur.committed) {
			ru.fatalf("a commit that changes rows created no snapshot")
		}
		return
	}
	kinds := ru.newSnapshots(id)
	sawAppend := false
	for i, k := range kinds {
		sid := ru.latest + 1
		switch k {
		case snapshot.KindAppend:
			sawAppend = true
			ru.cur.committed = pending
			if ru.v.skipsLevel0() {
				ru.cur.dirty = true
			} else {
				ru.cur.visible = pending
			}
		case snapshot.KindCompact:
			ru.stats["writer compactions"]++
			if i == 0 {
				ru.fatalf("snapshot %d: a write commit's first snapshot is COMPACT", sid)
			}
			ru.cur.visible, ru.cur.dirty = ru.cur.committed, false
		default:
			ru.fatalf("snapshot %d: unexpected commit kind %s", sid, k)
		}
		ru.latest = sid
		ru.snaps[sid] = ru.cur
	}
	if !sawAppend {
		ru.fatalf("write commit created snapshots %v without an APPEND one", kinds)
	}
	if ru.v.skipsLevel0() && !ru.wWriteOnly && ru.cur.dirty {
		// Java's writer compacts level 0 of a deletion-vector or first-row
		// table in every prepareCommit (lookup compaction, ForceUpLevel0).
		ru.fatalf("snapshot %d: the writer left level-0 files of a table that reads skip level 0 (no COMPACT snapshot)", id)
	}
}

// newSnapshots returns the commit kinds of snapshots latest+1 .. id, which
// must all exist.
func (ru *run) newSnapshots(id int64) []snapshot.CommitKind {
	if id <= ru.latest || id > ru.latest+2 {
		ru.fatalf("commit returned snapshot %d after latest %d", id, ru.latest)
	}
	var out []snapshot.CommitKind
	for sid := ru.latest + 1; sid <= id; sid++ {
		s, err := ru.sm.Get(ru.ctx, sid)
		if err != nil {
			ru.fatalf("snapshot %d: %v", sid, err)
		}
		out = append(out, s.CommitKind)
	}
	return out
}

func (ru *run) compact(forced bool) {
	full := ru.r.IntN(2) == 0
	// A dedicated compaction changes the files a kept writer restored:
	// its next compaction would conflict. Java's writer would fail the
	// same way; start a new one.
	ru.closeWriter()
	id, err := compaction.Compact(ru.ctx, ru.fio, ru.ts, compactUser, compaction.Options{Full: full})
	ru.logf("compact full=%v forced=%v -> snapshot %d", full, forced, id)
	if err != nil {
		ru.fatalf("compaction.Compact: %v", err)
	}
	if id == 0 {
		if ru.cur.dirty {
			ru.fatalf("compaction.Compact found nothing to compact, but level-0 files are left")
		}
		return
	}
	ru.stats[fmt.Sprintf("compactions (full=%v)", full)]++
	if kinds := ru.newSnapshots(id); !slices.Equal(kinds, []snapshot.CommitKind{snapshot.KindCompact}) {
		ru.fatalf("compaction.Compact created snapshots of kinds %v, want one COMPACT", kinds)
	}
	if full {
		ru.cur.committed = dropDeleted(ru.cur.committed)
	}
	ru.cur.visible, ru.cur.dirty = ru.cur.committed, false
	ru.latest = id
	ru.snaps[id] = ru.cur
}

// compactManifests runs an on-demand manifest compaction: a COMPACT
// snapshot that changes no row and no file, or nothing.
func (ru *run) compactManifests() {
	cm, err := commit.New(ru.fio, ru.ts, compactUser)
	if err != nil {
		ru.fatalf("commit.New: %v", err)
	}
	id, err := cm.CompactManifests(ru.ctx)
	cm.Close()
	ru.logf("compact manifests -> snapshot %d", id)
	if err != nil {
		ru.fatalf("CompactManifests: %v", err)
	}
	if id == 0 {
		return
	}
	ru.stats["manifest compactions"]++
	if kinds := ru.newSnapshots(id); !slices.Equal(kinds, []snapshot.CommitKind{snapshot.KindCompact}) {
		ru.fatalf("CompactManifests created snapshots of kinds %v, want one COMPACT", kinds)
	}
	ru.latest = id
	ru.snaps[id] = ru.cur
}

func (ru *run) retained() []int64 {
	return slices.Sorted(maps.Keys(ru.snaps))
}

func (ru *run) expire() {
	ids := ru.retained()
	if len(ids) == 0 {
		return
	}
	opts := expire.Options{RetainMin: 1 + ru.r.IntN(3)}
	opts.RetainMax = opts.RetainMin + ru.r.IntN(4)
	opts.OlderThan = time.Now().Add(time.Hour)
	timed := ru.r.IntN(3) == 0
	times := map[int64]int64{}
	if timed {
		for _, id := range ids {
			s, err := ru.sm.Get(ru.ctx, id)
			if err != nil {
				ru.fatalf("snapshot %d: %v", id, err)
			}
			times[id] = s.TimeMillis
		}
		opts.OlderThan = time.UnixMilli(times[ids[ru.r.IntN(len(ids))]])
	}
	// Java ExpireSnapshotsImpl.expire without consumers, under the limit:
	// snapshot id expires only when snapshot id+1 is older than the
	// threshold.
	earliest, latest := ids[0], ids[len(ids)-1]
	lo := max(latest-int64(opts.RetainMax)+1, earliest)
	end := latest - int64(opts.RetainMin) + 1
	if timed {
		for id := lo; id < end; id++ {
			if opts.OlderThan.UnixMilli() <= times[id+1] {
				end = id
				break
			}
		}
	}
	var want []int64
	for _, id := range ids {
		if id < end {
			want = append(want, id)
		}
	}
	res, err := expire.Expire(ru.ctx, ru.fio, ru.ts, opts)
	ru.logf("expire min=%d max=%d timed=%v -> expired %v", opts.RetainMin, opts.RetainMax, timed, res.Expired)
	if err != nil {
		ru.fatalf("expire.Expire: %v", err)
	}
	if !slices.Equal(res.Expired, want) {
		ru.fatalf("expire.Expire expired %v, want %v (retained %v)", res.Expired, want, ids)
	}
	for _, id := range want {
		delete(ru.snaps, id)
	}
	ru.stats["expired snapshots"] += len(want)
}

func (ru *run) createTag() {
	ids := ru.retained()
	if len(ids) == 0 {
		return
	}
	var id, want int64 = 0, ru.latest // 0: the latest snapshot
	if ru.r.IntN(2) == 0 {
		id = ids[ru.r.IntN(len(ids))]
		want = id
	}
	ru.nextTag++
	name := fmt.Sprintf("tag%d", ru.nextTag)
	tg, err := tag.Create(ru.ctx, ru.fio, ru.ts, name, id, tag.CreateOptions{})
	ru.logf("create tag %s of snapshot %d", name, want)
	if err != nil {
		ru.fatalf("tag.Create: %v", err)
	}
	if tg.ID != want {
		ru.fatalf("tag %s tags snapshot %d, want %d", name, tg.ID, want)
	}
	ru.tags[name] = tagged{id: want, st: ru.snaps[want]}
	ru.stats["tags created"]++
}

func (ru *run) deleteTag() {
	names := slices.Sorted(maps.Keys(ru.tags))
	if len(names) == 0 {
		return
	}
	name := names[ru.r.IntN(len(names))]
	_, err := tag.Delete(ru.ctx, ru.fio, ru.ts, name, tag.DeleteOptions{})
	ru.logf("delete tag %s (snapshot %d)", name, ru.tags[name].id)
	if err != nil {
		ru.fatalf("tag.Delete: %v", err)
	}
	delete(ru.tags, name)
	ru.stats["tags deleted"]++
}

func (ru *run) rollback() {
	ids := ru.retained()
	names := slices.Sorted(maps.Keys(ru.tags))
	if len(ids) == 0 {
		return
	}
	var target expire.Target
	var st snapState
	if len(names) > 0 && ru.r.IntN(5) < 2 {
		name := names[ru.r.IntN(len(names))]
		target.Tag, st = name, ru.tags[name].st
	} else {
		target.Snapshot = ids[ru.r.IntN(len(ids))]
		st = ru.snaps[target.Snapshot]
	}
	to := target.Snapshot
	if target.Tag != "" {
		to = ru.tags[target.Tag].id
	}
	_, kept := ru.snaps[to]
	var wantSnaps []int64
	for _, id := range slices.Backward(ids) {
		if id > to {
			wantSnaps = append(wantSnaps, id)
		}
	}
	var wantTags []string
	for _, n := range names {
		if ru.tags[n].id > to {
			wantTags = append(wantTags, n)
		}
	}
	keep := ru.r.IntN(3) == 0
	ru.closeWriter()
	res, err := expire.Rollback(ru.ctx, ru.fio, ru.ts, target, expire.RollbackOptions{DeleteFiles: !keep})
	ru.logf("rollback to %+v (snapshot %d, keep files %v) -> removed snapshots %v, tags %v", target, to, keep, res.Snapshots, res.Tags)
	if err != nil {
		ru.fatalf("expire.Rollback: %v", err)
	}
	slices.Sort(res.Tags)
	if res.Snapshot != to || res.Created == kept || !slices.Equal(res.Snapshots, wantSnaps) || !slices.Equal(res.Tags, wantTags) {
		ru.fatalf("rollback result %+v, want snapshot %d created %v, snapshots %v, tags %v", res, to, !kept, wantSnaps, wantTags)
	}
	if !kept {
		// The tagged snapshot had expired: it is recreated and becomes the
		// only one (every retained snapshot is newer).
		clear(ru.snaps)
	}
	for _, id := range wantSnaps {
		delete(ru.snaps, id)
	}
	for _, n := range wantTags {
		delete(ru.tags, n)
	}
	ru.snaps[to] = st
	ru.cur, ru.latest = st, to
	ru.stats["rollbacks"]++
	if !kept {
		ru.stats["rollbacks to expired tagged snapshots"]++
	}
}

// --- checks ----------------------------------------------------------------

// check compares the table with the model after step i.
func (ru *run) check(i int) {
	ru.t.Helper()
	ids := ru.retained()
	if ru.latest == 0 {
		return
	}
	listed, err := ru.sm.List(ru.ctx)
	if err != nil {
		ru.fatalf("step %d: list snapshots: %v", i, err)
	}
	var got []int64
	for _, s := range listed {
		got = append(got, s.ID)
	}
	if !slices.Equal(got, ids) {
		ru.fatalf("step %d: snapshots listed %v, model has %v", i, got, ids)
	}
	if l, err := ru.sm.LatestID(ru.ctx); err != nil || l != ru.latest {
		ru.fatalf("step %d: latest snapshot %d (%v), want %d", i, l, err, ru.latest)
	}
	if e, err := ru.sm.EarliestID(ru.ctx); err != nil || e != ids[0] {
		ru.fatalf("step %d: earliest snapshot %d (%v), want %d", i, e, err, ids[0])
	}
	tags, err := tag.List(ru.ctx, ru.fio, "")
	if err != nil {
		ru.fatalf("step %d: list tags: %v", i, err)
	}
	gotTags := map[string]int64{}
	for _, tg := range tags {
		gotTags[tg.Name] = tg.ID
	}
	wantTags := map[string]int64{}
	for n, tg := range ru.tags {
		wantTags[n] = tg.id
	}
	if !maps.Equal(gotTags, wantTags) {
		ru.fatalf("step %d: tags %v, model has %v", i, gotTags, wantTags)
	}

	ru.expectRows(fmt.Sprintf("step %d: latest read", i), ru.snaps[ru.latest].visible)
	for _, id := range ids {
		what := fmt.Sprintf("step %d: snapshot %d", i, id)
		ru.expectRows(what, ru.snaps[id].visible, reader.WithSnapshot(id))
		ru.expectFiles(what, ru.snaps[id].committed, reader.WithSnapshot(id))
	}
	for _, n := range slices.Sorted(maps.Keys(ru.tags)) {
		what := fmt.Sprintf("step %d: tag %s (snapshot %d)", i, n, ru.tags[n].id)
		ru.expectRows(what, ru.tags[n].st.visible, reader.WithTag(n))
		ru.expectFiles(what, ru.tags[n].st.committed, reader.WithTag(n))
	}
}

// expectRows reads the table with opts and compares with st.
func (ru *run) expectRows(what string, st state, opts ...reader.Option) {
	ru.t.Helper()
	got, err := ru.read(opts...)
	if err != nil {
		ru.fatalf("%s: read: %v", what, err)
	}
	want := ru.jsonl(st)
	if !slices.Equal(got, want) {
		ru.fatalf("%s differs from the model: %s", what, diffLines(got, want))
	}
}

// expectFiles is case (d): every data file and deletion-vector index file a
// snapshot or tag lists exists. For tables whose reads skip level 0, the
// read of all levels must also equal the committed state.
func (ru *run) expectFiles(what string, committed state, opts ...reader.Option) {
	ru.t.Helper()
	opts = append(opts, reader.WithAllLevels())
	plan, err := reader.NewScan(ru.fio, opts...).Plan(ru.ctx)
	if err != nil {
		ru.fatalf("%s: plan all levels: %v", what, err)
	}
	for _, sp := range plan.Splits {
		for _, f := range sp.Files {
			p := path.Join(sp.BucketPath, f.FileName)
			if ok, err := ru.fio.Exists(ru.ctx, p); err != nil || !ok {
				ru.fatalf("%s lists data file %s (level %d), which is gone (%v)", what, p, f.Level, err)
			}
		}
		for name, df := range sp.DeletionFiles {
			p := path.Join("index", df.IndexFile)
			if ok, err := ru.fio.Exists(ru.ctx, p); err != nil || !ok {
				ru.fatalf("%s lists deletion vector file %s of %s, which is gone (%v)", what, p, name, err)
			}
		}
	}
	if ru.v.skipsLevel0() {
		ru.expectRows(what+" (all levels)", committed, opts...)
	}
}

func (ru *run) read(opts ...reader.Option) ([]string, error) {
	return readTable(ru.ctx, ru.fio, opts...)
}

// readTable reads the table rooted at fio with opts and returns its rows as
// sorted rowfmt JSONL lines (nil for no rows).
func readTable(ctx context.Context, fio *fileio.FileIO, opts ...reader.Option) ([]string, error) {
	plan, err := reader.NewScan(fio, opts...).Plan(ctx)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w, err := rowfmt.NewWriter(&buf, rowfmt.JSONL, &rowfmt.Options{Fields: plan.Fields})
	if err != nil {
		return nil, err
	}
	for rec, err := range plan.Records(ctx) {
		if err != nil {
			return nil, err
		}
		werr := w.Write(rec)
		rec.Release()
		if werr != nil {
			return nil, werr
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return sortedLines(buf.Bytes()), nil
}

func (ru *run) jsonl(st state) []string {
	ru.t.Helper()
	data, err := tabletest.FormatJSONL(ru.ts.Fields, st.rows()...)
	if err != nil {
		ru.fatalf("format expected rows: %v", err)
	}
	return sortedLines(data)
}

func sortedLines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return lines
}

// batch builds the Arrow batch of recs with the row kind column.
func (ru *run) batch(recs []record) arrow.RecordBatch {
	sc := types.SchemaToArrow(ru.ts.Fields)
	sc = arrow.NewSchema(append(sc.Fields(), arrow.Field{Name: writer.DefaultRowKindColumn, Type: arrow.BinaryTypes.String}), nil)
	rows := make([][]any, len(recs))
	for i, r := range recs {
		rows[i] = append(slices.Clone(r.row), kindName(r.kind))
	}
	rec, err := tabletest.NewBatch(sc, rows...)
	if err != nil {
		ru.fatalf("batch: %v", err)
	}
	return rec
}

// describe is a short form of records for the step log: kind part/id,
// and @sequence.field.
func (ru *run) describe(recs []record) string {
	var b strings.Builder
	for i, r := range recs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s%s/%d", kindName(r.kind), r.row[colPart], r.row[colID])
		if s, ok := r.row[colSeq].(int64); ok && ru.v.seqField {
			fmt.Fprintf(&b, "@%d", s)
		}
	}
	return b.String()
}

// diffLines describes how got differs from want (both sorted).
func diffLines(got, want []string) string {
	var missing, extra []string
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		switch {
		case j == len(want) || (i < len(got) && got[i] < want[j]):
			extra = append(extra, got[i])
			i++
		case i == len(got) || got[i] > want[j]:
			missing = append(missing, want[j])
			j++
		default:
			i++
			j++
		}
	}
	return fmt.Sprintf("%d rows read, %d expected\nmissing (expected, not read):\n  %s\nextra (read, not expected):\n  %s",
		len(got), len(want), strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
}
