package maintain_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/maintain"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

// BenchmarkCommitAutoExpiry measures the commit latency (p50, p99) of one
// small append with automatic expiration on, next to the same commits
// without it, interleaved in one run on MinIO so that both see the same
// store: each iteration commits once to a table whose Committer has a
// Maintainer and once to one without, 20 ms apart (untimed). It reports
// both p50s and their ratio.
//
//   - idle: default retention (10 snapshots, 1 h): nothing is ever due, the
//     common case of a service; the Maintainer reads the earliest id and its
//     successor once and nothing after;
//
//   - due-sync: snapshot.num-retained.max = 10: every commit expires one
//     snapshot inside the commit call (snapshot.expire.execution-mode sync,
//     Java's default);
//
//   - due-async: the same in the background (execution-mode async).
//
//     go test -run XXX -bench CommitAutoExpiry -benchtime 100x ./maintain/
func BenchmarkCommitAutoExpiry(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts map[string]string
	}{
		{"idle", nil},
		{"due-sync", map[string]string{"snapshot.num-retained.max": "10"}},
		{"due-async", map[string]string{"snapshot.num-retained.max": "10", "snapshot.expire.execution-mode": "async"}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			opts := map[string]string{}
			maps.Copy(opts, mode.opts)
			on := tabletest.NewTable(b, testenv.MinIO(b), catalog.Schema{Fields: fields, Options: opts})
			off := tabletest.NewTable(b, testenv.MinIO(b), catalog.Schema{Fields: fields, Options: opts})
			m, err := maintain.New(on.FileIO, on.Schema, "bench", maintain.Options{OnError: func(err error) { b.Error(err) }})
			if err != nil {
				b.Fatal(err)
			}
			cOn, err := commit.New(on.FileIO, on.Schema, "bench", commit.WithMaintainer(m))
			if err != nil {
				b.Fatal(err)
			}
			defer cOn.Close()
			cOff, err := commit.New(off.FileIO, off.Schema, "bench")
			if err != nil {
				b.Fatal(err)
			}
			defer cOff.Close()
			var tOn, tOff []time.Duration
			id := int64(0)
			sc := types.SchemaToArrow(fields)
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				id++
				rec := tabletest.Batch(b, sc, []any{id, "x"})
				mOn := tabletest.Prepare(b, on, "bench", rec)
				mOff := tabletest.Prepare(b, off, "bench", rec)
				rec.Release()
				for _, side := range []struct {
					c    *commit.Committer
					msgs []commit.Message
					out  *[]time.Duration
				}{{cOn, mOn, &tOn}, {cOff, mOff, &tOff}} {
					time.Sleep(20 * time.Millisecond)
					b.StartTimer()
					start := time.Now()
					if _, err := side.c.Commit(ctx, id, side.msgs); err != nil {
						b.Fatal(err)
					}
					*side.out = append(*side.out, time.Since(start))
					b.StopTimer()
				}
				b.StartTimer()
			}
			b.StopTimer()
			cOn.Close()
			st := m.Stats()
			onP50, offP50 := pct(tOn, 50), pct(tOff, 50)
			b.ReportMetric(ms(onP50), "on-p50-ms")
			b.ReportMetric(ms(pct(tOn, 99)), "on-p99-ms")
			b.ReportMetric(ms(offP50), "off-p50-ms")
			b.ReportMetric(ms(pct(tOff, 99)), "off-p99-ms")
			b.ReportMetric(float64(onP50)/float64(offP50), "on/off-p50")
			b.ReportMetric(float64(st.SnapshotsExpired), "expired")
		})
	}
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
