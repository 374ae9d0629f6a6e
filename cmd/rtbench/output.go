package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/fileio"
)

// jsonRun is one workload's result in --json: exactly the keys issues 5
// and 16 list, and the two rates encode_ratio is made of.
type jsonRun struct {
	Store               string     `json:"store"`
	Workload            string     `json:"workload"`
	Rows                int64      `json:"rows"`
	Commits             int        `json:"commits"`
	CommitMS            commitJSON `json:"commit_ms"`
	DataFilesMS         p50p99     `json:"data_files_ms"` // PrepareCommit
	MetadataMS          p50p99     `json:"metadata_ms"`   // Commit
	PutMS               p50p99     `json:"put_ms"`
	CommitToPutP50Ratio float64    `json:"commit_to_put_p50_ratio"`
	// MetadataToPutP50Ratio is metadata_ms.p50 / put_ms.p50.
	MetadataToPutP50Ratio float64 `json:"metadata_to_put_p50_ratio"`
	// CommitterMS is the commit.Committer's part of metadata_ms (up to its
	// snapshot's publication; the rest is the real-time layer's lookup
	// warming and hand-over), CommitterToPutP50Ratio its p50 over put_ms.p50.
	CommitterMS            p50p99  `json:"committer_ms"`
	CommitterToPutP50Ratio float64 `json:"committer_to_put_p50_ratio"`
	// ProtocolMS is the commit protocol's floor (measureProtocol: the
	// requests a commit cannot do without, timed alone before the
	// workloads); ProtocolToPutP50Ratio its p50 over put_ms.p50, the least
	// metadata_to_put_p50_ratio this store allows; CommitterToProtocolP50Ratio
	// committer_ms.p50 over its p50, what the committer adds to it under
	// the workload.
	ProtocolMS                  p50p99  `json:"protocol_ms"`
	ProtocolToPutP50Ratio       float64 `json:"protocol_to_put_p50_ratio"`
	CommitterToProtocolP50Ratio float64 `json:"committer_to_protocol_p50_ratio"`
	// RequestsPerCommit counts the committer's own FileIO (all sides on
	// mem://, whose one FileIO they share).
	RequestsPerCommit float64 `json:"requests_per_commit"`
	// DataFilesRowsPerS is the rows of the commits per second of their
	// data-file phases; PqarrowEncodeRowsPerS arrow-go's pqarrow encoding
	// the same batches (measureEncode); EncodeRatio the first over the
	// second.
	DataFilesRowsPerS     float64 `json:"data_files_rows_per_s"`
	PqarrowEncodeRowsPerS float64 `json:"pqarrow_encode_rows_per_s"`
	EncodeRatio           float64 `json:"encode_ratio"`
	IngestRowsPerS        float64 `json:"ingest_rows_per_s"`
	FreshnessMS           p50p99  `json:"freshness_ms"`
	LookupFreshnessMS     *p50p99 `json:"lookup_freshness_ms,omitempty"` // Write return → Context.Lookup returns the row
	// QueryMS is the union-read query latency, PlanMS its planning part.
	QueryMS      p50p99 `json:"query_ms"`
	PlanMS       p50p99 `json:"plan_ms"`
	RowsVerified bool   `json:"rows_verified"`
	// InputBytes is the resident size of the loaded input: the live heap
	// of the flights batches and of the workload's batches and model
	// (result.inputBytes), part of PeakRSSBytes.
	InputBytes   int64 `json:"input_bytes"`
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// StoreBytesPerRowRatio is the real-time stores' bytes per row held
	// (sampled at the start of every commit) over the input's Arrow bytes
	// per row; 0 without the real-time layer.
	StoreBytesPerRowRatio float64 `json:"store_bytes_per_row_ratio"`
	// Follow is set for --workload follow only.
	Follow *followJSON `json:"follow,omitempty"`
}

// followJSON is the follow workload's follower: latency from Write
// returning to the follower yielding the row, rows delivered, deliveries
// (snapshots with changes), delivery rate.
type followJSON struct {
	LatencyMS  commitJSON `json:"latency_ms"`
	Rows       int64      `json:"rows"`
	Deliveries int        `json:"deliveries"`
	RowsPerS   float64    `json:"rows_per_s"`
}

type commitJSON struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

type p50p99 struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

// commitDist is the distribution of whole commit latencies (data files +
// metadata).
func (r *result) commitDist() dist {
	d := make([]time.Duration, len(r.commits))
	for i, c := range r.commits {
		d[i] = c.total()
	}
	return distOf(d)
}

// committerDist is the distribution of the committer's part of the
// metadata phase (commitEvent.committer); afterDist that of the rest.
func (r *result) committerDist(after bool) dist {
	d := make([]time.Duration, len(r.commits))
	for i, c := range r.commits {
		d[i] = c.committer
		if after {
			d[i] = c.publish - c.committer
		}
	}
	return distOf(d)
}

func (r *result) phaseDist(publish bool) dist {
	d := make([]time.Duration, len(r.commits))
	for i, c := range r.commits {
		d[i] = c.prepare
		if publish {
			d[i] = c.publish
		}
	}
	return distOf(d)
}

// commitPhaseDist is the distribution over the commits of one phase of
// the metadata part, as commit.WithTrace reports it; for PhaseRetry over
// the commits that lost a race only, and for PhaseOffsets over those that
// wrote an offsets file.
func (r *result) commitPhaseDist(ph commit.Phase) dist {
	var d []time.Duration
	for _, c := range r.commits {
		v := c.phases.d[ph]
		if (ph == commit.PhaseRetry && c.phases.retries == 0) || (ph == commit.PhaseOffsets && v == 0) {
			continue
		}
		d = append(d, v)
	}
	return distOf(d)
}

// lostRaces counts the lost races of the run's commits.
func (r *result) lostRaces() int {
	n := 0
	for _, c := range r.commits {
		n += c.phases.retries
	}
	return n
}

// ratio is the whole commit's p50 over the store's PUT p50.
func (r *result) ratio() float64 { return r.putRatio(r.commitDist()) }

// metadataRatio is the metadata phase's p50 over the store's PUT p50.
func (r *result) metadataRatio() float64 { return r.putRatio(r.phaseDist(true)) }

// storeRatio is the real-time stores' bytes per row over the input's
// Arrow bytes per row (0 when either is unknown), rounded to 0.001.
func (r *result) storeRatio() float64 {
	if r.storeRows == 0 || r.rawRowBytes <= 0 {
		return 0
	}
	return math.Round(float64(r.storeBytes)/float64(r.storeRows)/r.rawRowBytes*1000) / 1000
}

// committerRatio is the committer's part of it over the PUT p50.
func (r *result) committerRatio() float64 { return r.putRatio(r.committerDist(false)) }

func (r *result) putRatio(d dist) float64 {
	put := r.floor.put.pct(50)
	if put <= 0 {
		return 0
	}
	return round3(float64(d.pct(50)) / float64(put))
}

// protocolRatio is d's p50 over the commit protocol floor's p50 (0 when
// that is not known).
func (r *result) protocolRatio(d dist) float64 {
	p := r.floor.protocol.pct(50)
	if p <= 0 {
		return 0
	}
	return round3(float64(d.pct(50)) / float64(p))
}

// requestsPerCommit is the committer's requests per commit (all sides'
// when they share one counter).
func (r *result) requestsPerCommit() float64 { return r.perCommit(r.commitReq) }

func (r *result) perCommit(s fileio.Stats) float64 {
	if len(r.commits) == 0 {
		return 0
	}
	return round3(float64(s.Total()) / float64(len(r.commits)))
}

// dataFilesRate is the rows the commits made durable per second of their
// data-file phases (PrepareCommit), over the whole run.
func (r *result) dataFilesRate() float64 {
	var rows int64
	var d time.Duration
	for _, c := range r.commits {
		rows += c.rows
		d += c.prepare
	}
	if rows == 0 || d <= 0 {
		return 0
	}
	return float64(rows) / d.Seconds()
}

// encodeRatio is dataFilesRate over the raw pqarrow encode rate of the
// same batches; 0 when the encode was not measured.
func (r *result) encodeRatio() float64 {
	e := r.encode.rate()
	if e <= 0 {
		return 0
	}
	return round3(r.dataFilesRate() / e)
}

func (r *result) ingestRate() float64 {
	if r.ingest <= 0 {
		return 0
	}
	return float64(int64(float64(r.rows) / r.ingest.Seconds()))
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

func (r *result) json() jsonRun {
	c := r.commitDist()
	return jsonRun{
		Store: r.store, Workload: r.workload, Rows: r.rows, Commits: len(r.commits),
		CommitMS:                    commitJSON{ms(c.pct(50)), ms(c.pct(95)), ms(c.pct(99)), ms(c.max())},
		DataFilesMS:                 p50p99Of(r.phaseDist(false)),
		MetadataMS:                  p50p99Of(r.phaseDist(true)),
		PutMS:                       p50p99Of(r.floor.put),
		CommitToPutP50Ratio:         r.ratio(),
		MetadataToPutP50Ratio:       r.metadataRatio(),
		CommitterMS:                 p50p99Of(r.committerDist(false)),
		CommitterToPutP50Ratio:      r.committerRatio(),
		ProtocolMS:                  p50p99Of(r.floor.protocol),
		ProtocolToPutP50Ratio:       r.putRatio(r.floor.protocol),
		CommitterToProtocolP50Ratio: r.protocolRatio(r.committerDist(false)),
		RequestsPerCommit:           r.requestsPerCommit(),
		DataFilesRowsPerS:           float64(int64(r.dataFilesRate())),
		PqarrowEncodeRowsPerS:       float64(int64(r.encode.rate())),
		EncodeRatio:                 r.encodeRatio(),
		IngestRowsPerS:              r.ingestRate(),
		FreshnessMS:                 p50p99Of(r.freshness),
		LookupFreshnessMS:           r.lookupJSON(),
		QueryMS:                     p50p99Of(r.query),
		PlanMS:                      p50p99Of(r.plan),
		RowsVerified:                r.rowsVerified,
		InputBytes:                  r.inputBytes,
		PeakRSSBytes:                r.peakRSS,
		StoreBytesPerRowRatio:       r.storeRatio(),
		Follow:                      r.followJSON(),
	}
}

func p50p99Of(d dist) p50p99 { return p50p99{ms(d.pct(50)), ms(d.pct(99))} }

func (r *result) lookupJSON() *p50p99 {
	if len(r.lookupFresh) == 0 {
		return nil
	}
	return &p50p99{ms(r.lookupFresh.pct(50)), ms(r.lookupFresh.pct(99))}
}

func (r *result) followJSON() *followJSON {
	if r.workload != "follow" {
		return nil
	}
	f := r.follow
	return &followJSON{
		LatencyMS: commitJSON{ms(f.pct(50)), ms(f.pct(95)), ms(f.pct(99)), ms(f.max())},
		Rows:      r.followRows, Deliveries: r.followSnapshots, RowsPerS: float64(int64(r.followRate)),
	}
}

// writeJSON writes one object for a single workload, an array of them for
// several.
func writeJSON(path string, results []*result) error {
	var v any
	if len(results) == 1 {
		v = results[0].json()
	} else {
		runs := make([]jsonRun, len(results))
		for i, r := range results {
			runs[i] = r.json()
		}
		v = runs
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("rtbench: write --json: %w", err)
	}
	return nil
}

// detail is --detail: every measure of the summary. RequestsPerCommit is
// the committer's requests per commit, WriterRequests the writer's and
// QueryRequests the queries' (each side on a FileIO of its own, but with
// SharedRequests: then each is the one counter).
type detail struct {
	Workload            string                        `json:"workload"`
	Store               string                        `json:"store"`
	Realtime            bool                          `json:"realtime"`
	Commit              string                        `json:"commit"`
	Rows                int64                         `json:"rows"`
	Batches             int                           `json:"batches"`
	Commits             int                           `json:"commits"`
	CommitMS            map[string]float64            `json:"commit_ms"`
	DataFilesMS         map[string]float64            `json:"data_files_ms"`
	MetadataMS          map[string]float64            `json:"metadata_ms"`
	ManifestsMS         map[string]float64            `json:"manifests_ms"`
	ManifestListsMS     map[string]float64            `json:"manifest_lists_ms"`
	OffsetsMS           map[string]float64            `json:"offsets_file_ms"`
	SnapshotPublishMS   map[string]float64            `json:"snapshot_publish_ms"`
	LostRaces           int                           `json:"lost_races"`
	RetryMS             map[string]float64            `json:"lost_race_ms"`
	RefreshMS           map[string]float64            `json:"refresh_ms"`
	FloorMS             map[string]map[string]float64 `json:"floor_ms"`
	CommitToPutP50Ratio float64                       `json:"commit_to_put_p50_ratio"`
	MetadataToPutRatio  float64                       `json:"metadata_to_put_p50_ratio"`
	RequestsPerCommit   map[string]float64            `json:"requests_per_commit"`
	WriterRequests      map[string]float64            `json:"writer_requests_per_commit"`
	QueryRequests       map[string]float64            `json:"query_requests_per_commit"`
	DataFilesRequests   map[string]float64            `json:"data_files_phase_requests_per_commit"`
	MetadataRequests    map[string]float64            `json:"metadata_phase_requests_per_commit"`
	SharedRequests      bool                          `json:"requests_include_reads"`
	DataFilesRowsPerS   float64                       `json:"data_files_rows_per_s"`
	EncodeRowsPerS      float64                       `json:"pqarrow_encode_rows_per_s"`
	EncodeRatio         float64                       `json:"encode_ratio"`
	EncodeRows          int64                         `json:"pqarrow_encode_rows"`
	EncodeFiles         int                           `json:"pqarrow_encode_files"`
	EncodeBytes         int64                         `json:"pqarrow_encode_bytes"`
	EncodeCompression   string                        `json:"pqarrow_encode_compression"`
	IngestRowsPerS      float64                       `json:"ingest_rows_per_s"`
	WriteMS             map[string]float64            `json:"write_call_ms"`
	FreshnessMS         map[string]float64            `json:"freshness_ms"`
	FreshnessPlanMS     map[string]float64            `json:"freshness_plan_ready_ms"`
	FreshnessViolations int64                         `json:"freshness_violations"`
	LookupFreshnessMS   map[string]float64            `json:"lookup_freshness_ms,omitempty"`
	LookupMissed        int64                         `json:"lookup_probes_missed"`
	QueryMS             map[string]float64            `json:"query_ms"`
	PlanMS              map[string]float64            `json:"query_plan_ms"`
	ReadBackMS          float64                       `json:"read_back_ms"`
	Files               int                           `json:"files"`
	Level0Files         int                           `json:"level0_files"`
	FinalSnapshot       int64                         `json:"final_snapshot"`
	InputBytes          int64                         `json:"input_bytes"`
	PeakRSSBytes        int64                         `json:"peak_rss_bytes"`
	FileRSSBytes        int64                         `json:"file_rss_bytes"` // resident pages mapped from files (code) when the peak was read
	RowsVerified        bool                          `json:"rows_verified"`
	VerifyError         string                        `json:"verify_error,omitempty"`
}

func lookupMap(d dist) map[string]float64 {
	if len(d) == 0 {
		return nil
	}
	return pctMap(d)
}

func pctMap(d dist) map[string]float64 {
	return map[string]float64{"p50": ms(d.pct(50)), "p95": ms(d.pct(95)), "p99": ms(d.pct(99)), "max": ms(d.max()), "n": float64(len(d))}
}

// reqMap is s per commit by kind, and their total.
func (r *result) reqMap(s fileio.Stats) map[string]float64 {
	n := float64(max(len(r.commits), 1))
	return map[string]float64{
		"total": r.perCommit(s), "put": float64(s.Put) / n, "get": float64(s.Get) / n,
		"list": float64(s.List) / n, "head": float64(s.Head) / n, "delete": float64(s.Delete) / n,
	}
}

// phaseRequests sums the requests of the data-file phases (publish false)
// or the metadata phases of the commits.
func (r *result) phaseRequests(publish bool) fileio.Stats {
	var s fileio.Stats
	for _, c := range r.commits {
		if publish {
			s = addStats(s, c.publishReq)
		} else {
			s = addStats(s, c.prepareReq)
		}
	}
	return s
}

func (r *result) detail() detail {
	return detail{
		Workload: r.workload, Store: r.store, Realtime: r.realtime, Commit: r.mode,
		Rows: r.rows, Batches: r.batches, Commits: len(r.commits),
		CommitMS: pctMap(r.commitDist()), DataFilesMS: pctMap(r.phaseDist(false)), MetadataMS: pctMap(r.phaseDist(true)),
		ManifestsMS:       pctMap(r.commitPhaseDist(commit.PhaseManifests)),
		ManifestListsMS:   pctMap(r.commitPhaseDist(commit.PhaseManifestLists)),
		OffsetsMS:         pctMap(r.commitPhaseDist(commit.PhaseOffsets)),
		SnapshotPublishMS: pctMap(r.commitPhaseDist(commit.PhaseSnapshot)),
		LostRaces:         r.lostRaces(), RetryMS: pctMap(r.commitPhaseDist(commit.PhaseRetry)),
		RefreshMS: pctMap(r.refresh),
		FloorMS: map[string]map[string]float64{
			"put": pctMap(r.floor.put), "get": pctMap(r.floor.get), "list": pctMap(r.floor.list),
			"protocol": pctMap(r.floor.protocol),
		},
		CommitToPutP50Ratio: r.ratio(), MetadataToPutRatio: r.metadataRatio(),
		RequestsPerCommit: r.reqMap(r.commitReq), WriterRequests: r.reqMap(r.writerReq), QueryRequests: r.reqMap(r.queryReq),
		DataFilesRequests: r.reqMap(r.phaseRequests(false)), MetadataRequests: r.reqMap(r.phaseRequests(true)),
		SharedRequests:    r.sharedRequests,
		DataFilesRowsPerS: float64(int64(r.dataFilesRate())), EncodeRowsPerS: float64(int64(r.encode.rate())),
		EncodeRatio: r.encodeRatio(), EncodeRows: r.encode.rows, EncodeFiles: r.encode.files, EncodeBytes: r.encode.bytes, EncodeCompression: r.encode.codec,
		IngestRowsPerS: r.ingestRate(), WriteMS: pctMap(r.write),
		FreshnessMS: pctMap(r.freshness), FreshnessPlanMS: pctMap(r.freshnessPlanned),
		FreshnessViolations: r.freshnessViolations,
		LookupFreshnessMS:   lookupMap(r.lookupFresh), LookupMissed: r.lookupMissed,
		QueryMS: pctMap(r.query), PlanMS: pctMap(r.plan), ReadBackMS: ms(r.readBack),
		Files: r.files, Level0Files: r.level0, FinalSnapshot: r.finalSnapshot,
		InputBytes: r.inputBytes, PeakRSSBytes: r.peakRSS, FileRSSBytes: r.fileRSS, RowsVerified: r.rowsVerified, VerifyError: oneLine(r.verifyErr),
	}
}

// writeDetail writes --detail: an array of per-workload objects.
func writeDetail(path string, results []*result) error {
	ds := make([]detail, len(results))
	for i, r := range results {
		ds[i] = r.detail()
	}
	b, err := json.MarshalIndent(ds, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("rtbench: write --detail: %w", err)
	}
	return nil
}

// fmtMS formats a latency in milliseconds with 3 significant decimals for
// small values.
func fmtMS(d time.Duration) string {
	f := float64(d.Nanoseconds()) / 1e6
	switch {
	case f < 1:
		return fmt.Sprintf("%.3f", f)
	case f < 100:
		return fmt.Sprintf("%.2f", f)
	default:
		return fmt.Sprintf("%.0f", f)
	}
}

func pcts(d dist, ps ...float64) string {
	if len(d) == 0 {
		return "-"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		if p == 100 {
			s[i] = fmtMS(d.max())
		} else {
			s[i] = fmtMS(d.pct(p))
		}
	}
	return strings.Join(s, " / ")
}

func perCommit(s fileio.Stats, n int) string {
	if n == 0 {
		return "-"
	}
	f := func(v int64) string { return fmt.Sprintf("%.1f", float64(v)/float64(n)) }
	var parts []string
	for _, kv := range []struct {
		k string
		v int64
	}{{"PUT", s.Put}, {"GET", s.Get}, {"LIST", s.List}, {"HEAD", s.Head}, {"DEL", s.Delete}} {
		if kv.v != 0 {
			parts = append(parts, kv.k+" "+f(kv.v))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, ", ")
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func bytesIEC(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d KiB", n>>10)
	}
}

// printSummary prints the summary table: one column per workload.
func printSummary(out io.Writer, cfg *config, results []*result) {
	if len(results) == 0 {
		return
	}
	fl := results[0].floor
	fmt.Fprintf(out, "\nstore %s\n", results[0].store)
	fmt.Fprintf(out, "store floor (%d sequential requests each, 1 KiB objects), ms p50 / p99: create-if-absent PUT %s, GET %s, LIST %s\n",
		len(fl.put), pcts(fl.put, 50, 99), pcts(fl.get, 50, 99), pcts(fl.list, 50, 99))
	if len(fl.protocol) > 0 {
		ratio := "-"
		if put := fl.put.pct(50); put > 0 {
			ratio = fmt.Sprintf("%.2f×", round3(float64(fl.protocol.pct(50))/float64(put)))
		}
		fmt.Fprintf(out, "commit protocol floor (%d rounds of %d create-if-absent PUTs at once, a create-if-absent PUT, a HEAD and a GET at once), ms p50 / p99: %s; p50 / PUT p50 %s ¶\n\n",
			len(fl.protocol), fl.protocolPuts, pcts(fl.protocol, 50, 99), ratio)
	} else {
		fmt.Fprintln(out)
	}

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(name string, f func(r *result) string) {
		fmt.Fprint(tw, name)
		for _, r := range results {
			fmt.Fprint(tw, "\t", f(r))
		}
		fmt.Fprintln(tw)
	}
	row("workload", func(r *result) string { return r.workload })
	row("write path", func(r *result) string {
		if r.realtime {
			return "real-time layer"
		}
		return "plain writer"
	})
	row("rows (batches)", func(r *result) string {
		return fmt.Sprintf("%s (%d × ≤%d)", thousands(r.rows), r.batches, cfg.batchRows)
	})
	row("commits", func(r *result) string { return fmt.Sprintf("%d, %s", len(r.commits), r.mode) })
	row("commit ms p50/p95/p99/max", func(r *result) string { return pcts(r.commitDist(), 50, 95, 99, 100) })
	row("  data files ms p50/p99", func(r *result) string { return pcts(r.phaseDist(false), 50, 99) })
	row("  metadata ms p50/p99", func(r *result) string { return pcts(r.phaseDist(true), 50, 99) })
	rt := slices.ContainsFunc(results, func(r *result) bool { return r.realtime })
	if rt {
		row("    committer ms p50/p99", func(r *result) string { return pcts(r.committerDist(false), 50, 99) })
	}
	row("    manifests ms p50/p99 †", func(r *result) string { return pcts(r.commitPhaseDist(commit.PhaseManifests), 50, 99) })
	row("    manifest lists ms p50/p99 †", func(r *result) string {
		return pcts(r.commitPhaseDist(commit.PhaseManifestLists), 50, 99)
	})
	if slices.ContainsFunc(results, func(r *result) bool { return r.realtime }) {
		row("    offsets file ms p50/p99 †", func(r *result) string { return pcts(r.commitPhaseDist(commit.PhaseOffsets), 50, 99) })
	}
	row("    snapshot publish ms p50/p99", func(r *result) string { return pcts(r.commitPhaseDist(commit.PhaseSnapshot), 50, 99) })
	if rt {
		row("    after it: lookups, context ms p50/p99", func(r *result) string { return pcts(r.committerDist(true), 50, 99) })
	}
	row("    lost races", func(r *result) string {
		n := r.lostRaces()
		if n == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (ms p50/p99 %s)", n, pcts(r.commitPhaseDist(commit.PhaseRetry), 50, 99))
	})
	row("  refresh ms p50/p99", func(r *result) string { return pcts(r.refresh, 50, 99) })
	row("commit p50 / PUT p50", func(r *result) string { return fmt.Sprintf("%.2f×", r.ratio()) })
	row("  metadata p50 / PUT p50", func(r *result) string {
		if r.floor.put.pct(50) <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", r.metadataRatio())
	})
	if rt {
		row("    committer p50 / PUT p50", func(r *result) string {
			if r.floor.put.pct(50) <= 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f×", r.committerRatio())
		})
	}
	row("  committer p50 / protocol floor p50 ¶", func(r *result) string {
		if r.floor.protocol.pct(50) <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", r.protocolRatio(r.committerDist(false)))
	})
	row("data files rows/s (pqarrow encode) §", func(r *result) string {
		if r.encode.rate() <= 0 {
			return thousands(int64(r.dataFilesRate())) + " (-)"
		}
		return fmt.Sprintf("%s (%s): %.2f×", thousands(int64(r.dataFilesRate())), thousands(int64(r.encode.rate())), r.encodeRatio())
	})
	reqRow := func(name string, s func(r *result) fileio.Stats) {
		row(name, func(r *result) string {
			if r.sharedRequests {
				return "one counter *"
			}
			return fmt.Sprintf("%.1f (%s)", r.perCommit(s(r)), perCommit(s(r), len(r.commits)))
		})
	}
	row("requests per commit: committer ‡", func(r *result) string {
		s := fmt.Sprintf("%.1f (%s)", r.requestsPerCommit(), perCommit(r.commitReq, len(r.commits)))
		if r.sharedRequests {
			s += " *"
		}
		return s
	})
	row("  of which metadata phase", func(r *result) string { return perCommit(r.phaseRequests(true), len(r.commits)) })
	reqRow("  writer ‡", func(r *result) fileio.Stats { return r.writerReq })
	row("  of which data files phase", func(r *result) string { return perCommit(r.phaseRequests(false), len(r.commits)) })
	reqRow("  queries ‡", func(r *result) fileio.Stats { return r.queryReq })
	row("ingest rows/s", func(r *result) string { return thousands(int64(r.ingestRate())) })
	row("Write call ms p50/p99", func(r *result) string { return pcts(r.write, 50, 99) })
	row("freshness ms p50/p99", func(r *result) string { return pcts(r.freshness, 50, 99) })
	row("  measured as", func(r *result) string {
		if r.realtime {
			return "Write return → views of a union read pinned"
		}
		return "Write return → snapshot published"
	})
	if slices.ContainsFunc(results, func(r *result) bool { return r.realtime }) {
		row("  to plan ready ms p50/p99", func(r *result) string { return pcts(r.freshnessPlanned, 50, 99) })
		row("  probes not seeing rows", func(r *result) string {
			if !r.realtime {
				return "-"
			}
			return fmt.Sprintf("%d of %d", r.freshnessViolations, len(r.freshness))
		})
	}
	if slices.ContainsFunc(results, func(r *result) bool { return len(r.lookupFresh) > 0 }) {
		row("lookup freshness ms p50/p99", func(r *result) string {
			if len(r.lookupFresh) == 0 {
				return "-"
			}
			return pcts(r.lookupFresh, 50, 99)
		})
		row("  measured as", func(r *result) string {
			if len(r.lookupFresh) == 0 {
				return "-"
			}
			return "Write return → Context.Lookup returns the row"
		})
		row("  lookups over 1 ms", func(r *result) string {
			if len(r.lookupFresh) == 0 {
				return "-"
			}
			over := 0
			for _, d := range r.lookupFresh {
				if d > time.Millisecond {
					over++
				}
			}
			return fmt.Sprintf("%d of %d", over, len(r.lookupFresh))
		})
	}
	if slices.ContainsFunc(results, func(r *result) bool { return r.workload == "follow" }) {
		row("follower: Write → row yielded ms p50/p99/max", func(r *result) string {
			if r.workload != "follow" {
				return "-"
			}
			return pcts(r.follow, 50, 99, 100)
		})
		row("  rows delivered (deliveries), rows/s", func(r *result) string {
			if r.workload != "follow" {
				return "-"
			}
			return fmt.Sprintf("%s (%d), %s", thousands(r.followRows), r.followSnapshots, thousands(int64(r.followRate)))
		})
	}
	row("union-read query ms p50/p99", func(r *result) string { return pcts(r.query, 50, 99) })
	row("  query", func(r *result) string {
		if r.workload == "append" {
			return "rows of the month being written"
		}
		return "every route, merged"
	})
	row("  of which plan ms p50/p99", func(r *result) string { return pcts(r.plan, 50, 99) })
	row("compaction", func(r *result) string {
		extra := r.finalSnapshot - int64(len(r.commits))
		return fmt.Sprintf("%d compact snapshots; %d files, %d at level 0", max(extra, 0), r.files, r.level0)
	})
	if cfg.snapshots > 0 {
		row("commit p50 first/last 100", func(r *result) string {
			s, e := r.scaling(commitEvent.total)
			return fmt.Sprintf("%s / %s ms (%.2f×, snapshot %d)", fmtMS(s), fmtMS(e), float64(e)/float64(max(s, 1)), r.finalSnapshot)
		})
		row("  data files", func(r *result) string {
			s, e := r.scaling(func(c commitEvent) time.Duration { return c.prepare })
			return fmt.Sprintf("%s / %s ms", fmtMS(s), fmtMS(e))
		})
		row("  metadata", func(r *result) string {
			s, e := r.scaling(func(c commitEvent) time.Duration { return c.publish })
			return fmt.Sprintf("%s / %s ms", fmtMS(s), fmtMS(e))
		})
		row("    snapshot publish", func(r *result) string {
			s, e := r.scaling(func(c commitEvent) time.Duration { return c.phases.d[commit.PhaseSnapshot] })
			return fmt.Sprintf("%s / %s ms", fmtMS(s), fmtMS(e))
		})
	}
	row("read back ms", func(r *result) string { return fmtMS(r.readBack) })
	row("peak RSS (loaded input; peak - input)", func(r *result) string {
		return fmt.Sprintf("%s (%s; %s)", bytesIEC(r.peakRSS), bytesIEC(r.inputBytes), bytesIEC(r.peakRSS-r.inputBytes))
	})
	row("  resident from files (code) at the end", func(r *result) string { return bytesIEC(r.fileRSS) })
	if rt {
		row("real-time store bytes/row (× input)", func(r *result) string {
			if r.storeRows == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f B (%.2f×)", float64(r.storeBytes)/float64(r.storeRows), r.storeRatio())
		})
	}
	row("rows verified", func(r *result) string {
		if r.rowsVerified {
			s := fmt.Sprintf("yes (%s rows read back)", thousands(r.verifiedRows))
			if r.unionVerified {
				s += ", union read too"
			}
			return s
		}
		return "NO: " + oneLine(r.verifyErr)
	})
	tw.Flush()
	fmt.Fprintln(out, "\n† written in one round of concurrent PUTs: the spans overlap each other (not the snapshot")
	fmt.Fprintln(out, "  publish, which follows them); the metadata phase also holds encoding, reads and checks.")
	fmt.Fprintln(out, "\n‡ store requests over the stream per commit, each side counted on a FileIO of its own:")
	fmt.Fprintln(out, "  committer: the commit.Committer's (manifests, manifest lists, snapshot, offsets file, hints,")
	fmt.Fprintln(out, "  expiration), including what it does in the background after a commit returns; writer: data")
	fmt.Fprintln(out, "  files and compaction (real-time: also the context's baseline and refresh reads); queries: the")
	fmt.Fprintln(out, "  union-read queries, freshness and lookup probes (real-time: also the lookups' warming after each")
	fmt.Fprintln(out, "  commit). The phase rows count the committer's requests during Commit and the writer's during")
	fmt.Fprintln(out, "  PrepareCommit (with any background compaction running then).")
	fmt.Fprintln(out, "\n§ rows of the commits per second of their data-file phases, and in brackets arrow-go's pqarrow")
	fmt.Fprintln(out, "  encoding the same batches, one file per commit, to a discarding writer with the table's")
	fmt.Fprintln(out, "  compression, after the stream with nothing else running; then their ratio.")
	fmt.Fprintln(out, "\n¶ the commit protocol floor: the requests a commit's metadata phase cannot do without, in their")
	fmt.Fprintln(out, "  order (its files at once, the snapshot's create-if-absent after them, the expired-gap check's")
	fmt.Fprintln(out, "  HEAD and GET after that), 1 KiB each, timed alone before the workloads with nothing encoded;")
	fmt.Fprintln(out, "  the committer row divides by it what the committer took under the workload.")
	if slices.ContainsFunc(results, func(r *result) bool { return r.sharedRequests }) {
		fmt.Fprintln(out, "\n* one request counter for writes, commits and reads (a mem:// store has one FileIO): the")
		fmt.Fprintln(out, "  committer's row counts every side, the concurrent queries' and probes' GETs and LISTs too.")
	}
}

// scaling returns the p50 of phase over the first and the last 100
// commits.
func (r *result) scaling(phase func(commitEvent) time.Duration) (start, end time.Duration) {
	c := make([]time.Duration, len(r.commits))
	for i, e := range r.commits {
		c[i] = phase(e)
	}
	n := min(100, len(c))
	return distOf(c[:n]).pct(50), distOf(c[len(c)-n:]).pct(50)
}

func oneLine(err error) string {
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
