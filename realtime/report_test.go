package realtime_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/memindexer"
	"github.com/paimon-go/paimon/metrics"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/types"
)

// TestRealtimeReport: a context WithReporter reports each
// CommitWithProgress with the rows and ranges it made durable, the rows
// its stores held, the prepare and commit times, and also the committer's
// CommitReport; an idle commit reports no snapshot.
func TestRealtimeReport(t *testing.T) {
	ctx := context.Background()
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{types.Field(0, "k", types.Int().NotNull()), types.Field(1, "v", types.String())},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "2", "realtime.enabled": "true", "write-only": "true"},
	})
	var rec metrics.Recorder
	rc, err := realtime.NewContext(tbl.FileIO, tbl.Schema, memindexer.Factory{}, realtime.WithReporter(&rec))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w, err := rc.NewWrite("u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cm, err := rc.NewCommit("u")
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	for k := range int32(7) {
		b.Field(0).(*array.Int32Builder).Append(k)
		b.Field(1).(*array.StringBuilder).Append("x")
	}
	rows := b.NewRecordBatch()
	b.Release()
	defer rows.Release()
	if err := w.Write(ctx, rows); err != nil {
		t.Fatal(err)
	}
	held := rc.Usage()
	prog, err := w.PrepareCommitWithProgress(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	id, err := cm.CommitWithProgress(ctx, prog, 1, nil)
	if err != nil || id != 1 {
		t.Fatalf("commit: %d, %v", id, err)
	}
	reports := rec.Reports()
	if len(reports) != 2 {
		t.Fatalf("%d reports, want a commit and a realtime report", len(reports))
	}
	c, ok1 := reports[0].(*metrics.CommitReport)
	r, ok2 := reports[1].(*metrics.RealtimeReport)
	if !ok1 || !ok2 {
		t.Fatalf("reports %T, %T", reports[0], reports[1])
	}
	ranges := 0
	for _, p := range prog {
		if !p.Range.Empty() {
			ranges++
		}
	}
	if c.AddedRecords != 7 || len(c.Snapshots) != 1 || c.Snapshots[0] != 1 {
		t.Errorf("commit report %+v", c)
	}
	if r.Snapshot != 1 || r.CommittedRows != 7 || r.Ranges != ranges || ranges < 1 || r.Err != nil ||
		r.BuildingRows+r.SealedRows != held.BuildingRows+held.SealedRows || r.BuildingRows+r.SealedRows != 7 ||
		r.Prepare <= 0 || r.Commit <= 0 || r.Freshness < r.Prepare+r.Commit {
		t.Errorf("realtime report %+v (held %+v, %d ranges)", r, held, ranges)
	}
	if err := rc.RefreshCommittedSnapshot(ctx, id); err != nil {
		t.Fatal(err)
	}
	// An idle commit: nothing prepared, no snapshot, no rows.
	prog, err = w.PrepareCommitWithProgress(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := cm.CommitWithProgress(ctx, prog, 2, nil); err != nil || id != 0 {
		t.Fatalf("idle commit: %d, %v", id, err)
	}
	var idle *metrics.RealtimeReport
	for _, x := range rec.Reports() {
		if y, ok := x.(*metrics.RealtimeReport); ok {
			idle = y
		}
	}
	if idle == nil || idle.Snapshot != 0 || idle.CommittedRows != 0 || idle.Ranges != 0 || idle.Err != nil {
		t.Errorf("idle realtime report %+v", idle)
	}
}
