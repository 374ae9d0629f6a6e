package serve_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-go/paimon/serve"
)

// TestServeSecondServerRefused: a second server on a table whose service
// file names a live server is refused with ErrTableServed and changes
// nothing (a review found both accepted rows, the older one acknowledging
// rows it could never commit); a record naming a dead address is replaced.
func TestServeSecondServerRefused(t *testing.T) {
	ctx := context.Background()
	path := newTable(t, true, nil)
	first, c := start(t, path, serve.Config{})
	put(t, c, kn([]int32{1}, []int64{10}, nil))

	second, err := serve.New(openTable(t, path), serve.Config{Token: token, CommitInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	err = second.Start("127.0.0.1:0")
	if !errors.Is(err, serve.ErrTableServed) {
		t.Fatalf("second server: %v, want ErrTableServed", err)
	}
	if err := second.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown of the refused server: %v", err)
	}
	rec, err := serve.ReadService(ctx, openTable(t, path).FileIO())
	if err != nil || rec.Location != first.Location() {
		t.Fatalf("service file after the refusal: %+v %v, want %s", rec, err, first.Location())
	}
	if got := views(t, c, path, []int32{1}); !slices.Equal(got, []string{"1 10"}) {
		t.Fatalf("first server after the refusal: %v", got)
	}
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	// A record of a server that is gone (kill -9 leaves it) is replaced.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "grpc+tcp://" + lis.Addr().String()
	lis.Close()
	fio := openTable(t, path).FileIO()
	if err := serve.WriteService(ctx, fio, serve.Service{Location: dead, PID: 1}); err != nil {
		t.Fatal(err)
	}
	// So is a damaged record, which readers report as such.
	if err := fio.WriteFile(ctx, serve.ServicePath, []byte("{\"loc")); err != nil {
		t.Fatal(err)
	}
	if _, err := serve.ReadService(ctx, fio); !errors.Is(err, serve.ErrDamagedService) || !strings.Contains(err.Error(), serve.ServicePath) {
		t.Fatalf("damaged record: %v, want ErrDamagedService naming %s", err, serve.ServicePath)
	}
	if _, _, err := serve.DialTable(ctx, openTable(t, path), token); !errors.Is(err, serve.ErrProviderUnavailable) || !errors.Is(err, serve.ErrDamagedService) {
		t.Fatalf("dial through a damaged record: %v, want ErrProviderUnavailable and ErrDamagedService", err)
	}
	second2, c2 := start(t, path, serve.Config{})
	if got := views(t, c2, path, []int32{1}); !slices.Equal(got, []string{"1 10"}) {
		t.Fatalf("server after a damaged record: %v", got)
	}
	if err := second2.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := serve.WriteService(ctx, fio, serve.Service{Location: dead, PID: 1}); err != nil {
		t.Fatal(err)
	}
	third, c3 := start(t, path, serve.Config{})
	if rec, err := serve.ReadService(ctx, fio); err != nil || rec.Location != third.Location() {
		t.Fatalf("service file after a dead record: %+v %v, want %s", rec, err, third.Location())
	}
	if got := views(t, c3, path, []int32{1}); !slices.Equal(got, []string{"1 10"}) {
		t.Fatalf("third server: %v", got)
	}
}

// TestServeForeignProgressAborts: another writer commits progress of the
// server's partition-bucket (here a real-time context in this process; the
// start refusal above keeps a second server out). The server's commit is
// refused for good, it drops what it holds, and the put stream that
// carried those rows ends with Aborted instead of going on as if they were
// kept; the progress action then names the other writer's snapshot.
func TestServeForeignProgressAborts(t *testing.T) {
	ctx := context.Background()
	path := newTable(t, true, map[string]string{"bucket": "1"})
	srv, c := start(t, path, serve.Config{})
	sample := kn([]int32{0}, []int64{0}, nil)
	defer sample.Release()
	ps, err := c.OpenPut(ctx, sample.Schema())
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	if n, err := ps.Write(sample); err != nil || n != 1 {
		t.Fatalf("put: %d %v", n, err)
	}

	tb := openTable(t, path)
	rc, err := tb.NewRealtimeContext()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	w, err := rc.NewWrite("other")
	if err != nil {
		t.Fatal(err)
	}
	cm, err := rc.NewCommit("other")
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	rec := kn([]int32{7}, []int64{70}, nil)
	defer rec.Release()
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	prog, err := w.PrepareCommitWithProgress(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	other, err := cm.CommitWithProgress(ctx, prog, 1, nil)
	if err != nil || other != 1 {
		t.Fatalf("other writer's commit: %d %v", other, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	if id, err := srv.Commit(ctx); err == nil {
		t.Fatalf("server commit over foreign progress succeeded (snapshot %d)", id)
	}
	_, err = ps.Write(sample)
	if status.Code(err) != codes.Aborted {
		t.Fatalf("put on the open stream after the server dropped its rows: %v, want Aborted", err)
	}
	// A new stream of the same client names the generation it saw.
	if n, err := c.Put(ctx, sample); status.Code(err) != codes.Aborted || n != 0 {
		t.Fatalf("new put after the drop: %d %v, want Aborted", n, err)
	}
	if got := views(t, c, path, []int32{0, 7}); !slices.Equal(got, []string{"7 70"}) {
		t.Fatalf("after the drop: %v, want the other writer's row", got)
	}
	p := mustProgress(t, c)
	if p.SnapshotID != other || p.Generation == "" {
		t.Fatalf("progress after the drop: %+v, want snapshot %d", p, other)
	}
	// Replayed after Progress, the row is taken.
	put(t, c, kn([]int32{0}, []int64{0}, nil))
	if id, err := srv.Commit(ctx); err != nil || id != other+1 {
		t.Fatalf("commit after the replay: %d %v", id, err)
	}
	if got := committedRows(t, path); !slices.Equal(got, []string{"0 0", "7 70"}) {
		t.Fatalf("committed after the replay: %v", got)
	}
}
