package commit_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/testenv"
)

// BenchmarkCommitLatency measures single-writer commit latency of one small
// append (the messages are prepared outside the timed part) on a local
// directory and on MinIO, next to the latency of one create-if-absent PUT of
// a snapshot-sized object on the same store, measured before each commit
// after the same pause. It reports p50 and p99 of the commits, the PUT p50 and the ratios
// of both to it (issue 3 targets commit p50 <= 3x the PUT p50 on MinIO).
//
// Commits are 20 ms apart (untimed), as a writer's checkpoints are: on
// object stores the Committer uses the gap to write the LATEST hint and the
// next base manifest list in the background. The "-tight" variants commit
// back to back, so that the next commit waits for that work.
//
//	go test -run XXX -bench CommitLatency -benchtime 100x ./commit/
func BenchmarkCommitLatency(b *testing.B) {
	for _, store := range []string{"local", "minio", "minio-tight"} {
		b.Run(store, func(b *testing.B) {
			url := ""
			if strings.HasPrefix(store, "minio") {
				url = testenv.MinIO(b)
			}
			gap := 20 * time.Millisecond
			if strings.HasSuffix(store, "-tight") {
				gap = 0
			}
			ctx := context.Background()
			tbl := newTable(b, url, kvSchema)
			c, err := commit.New(tbl.FileIO, tbl.Schema, "bench")
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			var commits, puts []time.Duration
			payload := make([]byte, 1024)
			id := int64(0)
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				id++
				msgs := prepare(b, tbl, "bench", []int64{id}, "x")
				time.Sleep(gap)
				start := time.Now()
				if err := tbl.FileIO.CreateIfAbsent(ctx, fmt.Sprintf("bench/put-%d", id), payload); err != nil {
					b.Fatal(err)
				}
				puts = append(puts, time.Since(start))
				time.Sleep(gap) // as before the PUT
				b.StartTimer()
				start = time.Now()
				if _, err := c.Commit(ctx, id, msgs); err != nil {
					b.Fatal(err)
				}
				commits = append(commits, time.Since(start))
			}
			p50, p99, put := pct(commits, 50), pct(commits, 99), pct(puts, 50)
			b.ReportMetric(ms(p50), "commit-p50-ms")
			b.ReportMetric(ms(p99), "commit-p99-ms")
			b.ReportMetric(ms(put), "put-p50-ms")
			b.ReportMetric(float64(p50)/float64(put), "p50/put")
			b.ReportMetric(float64(p99)/float64(put), "p99/put")
		})
	}
}

// BenchmarkCommitGrowth measures whether commit latency grows with the
// table's history: one Committer makes 1,000 commits of one new file each on
// a local directory (with the default manifest thresholds, so the base list
// is merged every manifest.merge-min-count = 30 commits), and the benchmark
// reports the p50 of commits 1-20 (snapshots 1-20), the p50 of commits
// 981-1000, their ratio (issue 3 targets <= 1.2), the p99 of all commits and
// the manifests in the last base list. The messages are copies of one
// writer-produced message with distinct file names, prepared outside the
// timed part (the commit does not open data files).
//
//	go test -run XXX -bench CommitGrowth -benchtime 1x ./commit/
func BenchmarkCommitGrowth(b *testing.B) {
	const n = 1000
	ctx := context.Background()
	var early, late, all []time.Duration
	var baseLen int
	for b.Loop() {
		b.StopTimer()
		tbl := newTable(b, "", kvSchema)
		proto := prepare(b, tbl, "bench", []int64{1}, "x")
		msgs := make([][]commit.Message, n)
		for i := range msgs {
			m := proto[0]
			f := m.Data.NewFiles[0]
			f.FileName = fmt.Sprintf("data-growth-%d.parquet", i)
			m.Data.NewFiles = []manifest.DataFileMeta{f}
			msgs[i] = []commit.Message{m}
		}
		c, err := commit.New(tbl.FileIO, tbl.Schema, "bench")
		if err != nil {
			b.Fatal(err)
		}
		early, late, all = early[:0], late[:0], all[:0]
		b.StartTimer()
		for i := range n {
			start := time.Now()
			if _, err := c.Commit(ctx, int64(i+1), msgs[i]); err != nil {
				b.Fatal(err)
			}
			d := time.Since(start)
			all = append(all, d)
			switch {
			case i < 20:
				early = append(early, d)
			case i >= n-20:
				late = append(late, d)
			}
		}
		b.StopTimer()
		c.Close()
		last := snapshots(b, tbl.FileIO)[n-1]
		metas, err := manifest.ReadManifestList(ctx, tbl.FileIO, last.BaseManifestList)
		if err != nil {
			b.Fatal(err)
		}
		baseLen = len(metas)
		b.StartTimer()
	}
	b.ReportMetric(ms(pct(early, 50)), "p50-at-10-ms")
	b.ReportMetric(ms(pct(late, 50)), "p50-at-1000-ms")
	b.ReportMetric(float64(pct(late, 50))/float64(pct(early, 50)), "late/early")
	b.ReportMetric(ms(pct(all, 99)), "p99-ms")
	b.ReportMetric(float64(baseLen), "base-manifests")
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
