package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/flights"
	"github.com/paimon-go/paimon/testenv"
	"github.com/paimon-go/paimon/types"
)

// jsonKeys are the keys issues 5 and 16 fix for --json, with their nested
// keys.
var jsonKeys = map[string][]string{
	"store": nil, "workload": nil, "rows": nil, "commits": nil,
	"commit_ms": {"p50", "p95", "p99", "max"}, "put_ms": {"p50", "p99"},
	"commit_to_put_p50_ratio": nil, "requests_per_commit": nil, "ingest_rows_per_s": nil,
	"freshness_ms": {"p50", "p99"}, "rows_verified": nil, "peak_rss_bytes": nil,
	// issue 16
	"data_files_ms": {"p50", "p99"}, "metadata_ms": {"p50", "p99"}, "metadata_to_put_p50_ratio": nil,
	"data_files_rows_per_s": nil, "pqarrow_encode_rows_per_s": nil, "encode_ratio": nil,
	"query_ms": {"p50", "p99"}, "plan_ms": {"p50", "p99"}, "input_bytes": nil,
	"committer_ms": {"p50", "p99"}, "committer_to_put_p50_ratio": nil, "store_bytes_per_row_ratio": nil,
	"protocol_ms": {"p50", "p99"}, "protocol_to_put_p50_ratio": nil, "committer_to_protocol_p50_ratio": nil,
}

// runCLI runs rtbench with args and returns its exit status, stdout and
// stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// checkRun checks one --json object: exactly the keys of issue 5, the
// workload and row count asked for, rows_verified, and commits.
func checkRun(t *testing.T, obj map[string]any, workload string, rows int) {
	t.Helper()
	checkRunRT(t, obj, workload, rows, true)
}

// checkRunRT is checkRun of a run through the real-time layer or not: the
// primary-key workloads of the real-time layer carry lookup_freshness_ms
// too.
func checkRunRT(t *testing.T, obj map[string]any, workload string, rows int, realtime bool) {
	t.Helper()
	var got []string
	for k := range obj {
		got = append(got, k)
	}
	keys := maps.Clone(jsonKeys)
	// The store holds the table columns as written (about the input's
	// Arrow bytes) and the system columns packed (0.99x the input for
	// append at 3,000,000 rows, more for small batches); no store, no
	// ratio.
	if r, _ := obj["store_bytes_per_row_ratio"].(float64); (realtime && r < 0.9) || (!realtime && r != 0) {
		t.Errorf("%s: store_bytes_per_row_ratio %v (realtime %v)", workload, r, realtime)
	}
	if _, ok := obj["lookup_freshness_ms"]; ok {
		// Primary-key workloads of the real-time layer, when a lookup
		// probe ran (probes alternate; TestSingleWorkloadJSON requires one).
		if !realtime || workload == "append" {
			t.Errorf("%s: lookup_freshness_ms in a run without lookups (realtime %v)", workload, realtime)
		}
		keys["lookup_freshness_ms"] = []string{"p50", "p99"}
	}
	var want []string
	for k := range keys {
		want = append(want, k)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: json keys %v, want %v", workload, got, want)
	}
	for k, sub := range keys {
		if sub == nil {
			continue
		}
		m, ok := obj[k].(map[string]any)
		if !ok {
			t.Fatalf("%s: %s is %T, want an object", workload, k, obj[k])
		}
		var keys []string
		for kk, v := range m {
			keys = append(keys, kk)
			if _, ok := v.(float64); !ok {
				t.Errorf("%s: %s.%s is %T, want a number", workload, k, kk, v)
			}
		}
		slices.Sort(keys)
		ws := slices.Clone(sub)
		slices.Sort(ws)
		if !slices.Equal(keys, ws) {
			t.Errorf("%s: %s keys %v, want %v", workload, k, keys, ws)
		}
	}
	if obj["workload"] != workload {
		t.Errorf("workload = %v, want %s", obj["workload"], workload)
	}
	if obj["rows"] != float64(rows) {
		t.Errorf("%s: rows = %v, want %d", workload, obj["rows"], rows)
	}
	if obj["rows_verified"] != true {
		t.Errorf("%s: rows_verified = %v", workload, obj["rows_verified"])
	}
	if c, _ := obj["commits"].(float64); c < 1 {
		t.Errorf("%s: commits = %v, want at least 1", workload, obj["commits"])
	}
	for _, k := range []string{"store", "workload"} {
		if s, _ := obj[k].(string); s == "" {
			t.Errorf("%s: %s is empty", workload, k)
		}
	}
	checkConsistent(t, obj, workload, rows)
}

// checkConsistent checks that the measures of one --json object agree
// with each other: each ratio is the quotient of the values it names
// (within the rounding of those values to 3 decimals, or to whole rows
// per second), each p50 is at most its p99 and positive where every commit
// has one, planning is part of the query, the committer made requests, and
// the loaded input holds at least the bytes of the rows' fixed-width
// columns and string offsets and are part of the peak RSS.
func checkConsistent(t *testing.T, obj map[string]any, workload string, rows int) {
	t.Helper()
	num := func(k string) float64 { v, _ := obj[k].(float64); return v }
	pct := func(k, p string) float64 { v, _ := obj[k].(map[string]any)[p].(float64); return v }
	// quotient checks got == round3(a/b), where a and b were rounded to
	// ±ea and ±eb before they were printed.
	quotient := func(name string, got, a, ea, b, eb float64) {
		t.Helper()
		if b <= eb {
			return // rounded to nothing: the quotient cannot be checked
		}
		want := a / b
		tol := (ea+want*eb)/(b-eb) + 0.0005 + 1e-9
		if d := got - want; d > tol || d < -tol {
			t.Errorf("%s: %s = %v, want %v / %v = %v (±%.4f)", workload, name, got, a, b, want, tol)
		}
	}
	const msRound = 0.0005 // ms() rounds to the microsecond
	quotient("metadata_to_put_p50_ratio", num("metadata_to_put_p50_ratio"), pct("metadata_ms", "p50"), msRound, pct("put_ms", "p50"), msRound)
	quotient("commit_to_put_p50_ratio", num("commit_to_put_p50_ratio"), pct("commit_ms", "p50"), msRound, pct("put_ms", "p50"), msRound)
	quotient("committer_to_put_p50_ratio", num("committer_to_put_p50_ratio"), pct("committer_ms", "p50"), msRound, pct("put_ms", "p50"), msRound)
	quotient("protocol_to_put_p50_ratio", num("protocol_to_put_p50_ratio"), pct("protocol_ms", "p50"), msRound, pct("put_ms", "p50"), msRound)
	quotient("committer_to_protocol_p50_ratio", num("committer_to_protocol_p50_ratio"), pct("committer_ms", "p50"), msRound, pct("protocol_ms", "p50"), msRound)
	// The protocol floor was timed (its p50 is positive). Its relation to
	// the PUT p50 is a timing, which a loaded machine can reverse: rtbench
	// reports it, the test does not assert it.
	if p50 := pct("protocol_ms", "p50"); p50 <= 0 {
		t.Errorf("%s: protocol_ms p50 %v, want > 0", workload, p50)
	}
	if c, m := pct("committer_ms", "p50"), pct("metadata_ms", "p50"); c <= 0 || c > m {
		t.Errorf("%s: committer_ms p50 %v, want in (0, metadata_ms p50 %v]", workload, c, m)
	}
	quotient("encode_ratio", num("encode_ratio"), num("data_files_rows_per_s"), 1, num("pqarrow_encode_rows_per_s"), 1)
	for _, k := range []string{"commit_ms", "data_files_ms", "metadata_ms", "committer_ms", "put_ms", "protocol_ms", "query_ms", "plan_ms", "freshness_ms"} {
		if pct(k, "p50") > pct(k, "p99") {
			t.Errorf("%s: %s p50 %v > p99 %v", workload, k, pct(k, "p50"), pct(k, "p99"))
		}
	}
	for _, k := range []string{"data_files_ms", "metadata_ms"} {
		if pct(k, "p50") <= 0 {
			t.Errorf("%s: %s p50 = %v, want > 0", workload, k, pct(k, "p50"))
		}
	}
	// Each query's planning is part of it, so every order statistic is too.
	for _, p := range []string{"p50", "p99"} {
		if pct("plan_ms", p) > pct("query_ms", p) {
			t.Errorf("%s: plan_ms %s %v > query_ms %s %v", workload, p, pct("plan_ms", p), p, pct("query_ms", p))
		}
	}
	if num("requests_per_commit") <= 0 || num("data_files_rows_per_s") <= 0 || num("pqarrow_encode_rows_per_s") <= 0 {
		t.Errorf("%s: requests_per_commit %v, data_files_rows_per_s %v, pqarrow_encode_rows_per_s %v; want each > 0",
			workload, num("requests_per_commit"), num("data_files_rows_per_s"), num("pqarrow_encode_rows_per_s"))
	}
	// date, delay and distance are 8 bytes a row, origin and destination
	// 4 bytes of offsets a row besides their characters.
	if in, peak := num("input_bytes"), num("peak_rss_bytes"); in < float64(rows)*(3*8+2*4) || (peak > 0 && in >= peak) {
		t.Errorf("%s: input_bytes %v, want at least %d and below peak_rss_bytes %v", workload, in, rows*(3*8+2*4), peak)
	}
}

// checkRequests checks the request counters of one --detail object: with
// a FileIO per side (not shared), the requests of the metadata phases are
// part of the committer's, those of the data-file phases part of the
// writer's, kind by kind, the committer made some and the queries wrote
// nothing; with one shared FileIO every side reports that counter. The
// committer's total is --json's requests_per_commit.
func checkRequests(t *testing.T, d, obj map[string]any, shared bool) {
	t.Helper()
	w := d["workload"]
	req := func(k string) map[string]any { m, _ := d[k].(map[string]any); return m }
	committer, writer, queries := req("requests_per_commit"), req("writer_requests_per_commit"), req("query_requests_per_commit")
	if committer["total"] != obj["requests_per_commit"] {
		t.Errorf("%s: detail requests_per_commit.total %v, json requests_per_commit %v", w, committer["total"], obj["requests_per_commit"])
	}
	if d["requests_include_reads"] != shared {
		t.Errorf("%s: requests_include_reads = %v, want %v", w, d["requests_include_reads"], shared)
	}
	if shared {
		if !maps.Equal(committer, writer) || !maps.Equal(committer, queries) {
			t.Errorf("%s: one shared counter, but committer %v, writer %v, queries %v", w, committer, writer, queries)
		}
		return
	}
	total := committer["total"].(float64) + writer["total"].(float64) + queries["total"].(float64)
	if c := committer["total"].(float64); c <= 0 || c >= total {
		t.Errorf("%s: committer requests per commit %v, want > 0 and below all sides' %v", w, c, total)
	}
	if c := committer["put"].(float64); c < 1 {
		t.Errorf("%s: committer PUTs per commit %v, want at least the snapshot", w, c)
	}
	for _, kind := range []string{"put", "get", "list", "head", "delete"} {
		if m, c := req("metadata_phase_requests_per_commit")[kind].(float64), committer[kind].(float64); m > c {
			t.Errorf("%s: metadata phase %s %v per commit > the committer's %v", w, kind, m, c)
		}
		if p, wr := req("data_files_phase_requests_per_commit")[kind].(float64), writer[kind].(float64); p > wr {
			t.Errorf("%s: data files phase %s %v per commit > the writer's %v", w, kind, p, wr)
		}
	}
	if queries["put"] != float64(0) || queries["delete"] != float64(0) {
		t.Errorf("%s: queries wrote: %v", w, queries)
	}
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return v
}

// TestAllWorkloads runs every workload on 20,000 flights on local disk and
// in memory, through the real-time layer and the plain writer, with commits
// every 2 batches of 1,000 rows, and checks the JSON (an array for
// --workload all), the plot and the summary.
func TestAllWorkloads(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"file", nil},
		{"mem", []string{"--store", "mem://"}},
		{"file-plain", []string{"--realtime=false"}},
		{"mem-plain", []string{"--store", "mem://", "--realtime=false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--rows", "20000", "--batch-rows", "1000", "--commit-every", "2",
				"--floor-samples", "5", "--json", filepath.Join(dir, "out.json"), "--plot", filepath.Join(dir, "out.svg"),
				"--detail", filepath.Join(dir, "detail.json")}
			args = append(args, tc.args...)
			st := strings.TrimSuffix(tc.name, "-plain")
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			runs, ok := readJSON(t, filepath.Join(dir, "out.json")).([]any)
			if !ok || len(runs) != 3 {
				t.Fatalf("json is %T of %d, want an array of 3 runs", runs, len(runs))
			}
			det, ok := readJSON(t, filepath.Join(dir, "detail.json")).([]any)
			if !ok || len(det) != 3 {
				t.Fatalf("detail.json is %T of %d, want an array of 3 runs", det, len(det))
			}
			for i, w := range workloadNames {
				obj := runs[i].(map[string]any)
				checkRunRT(t, obj, w, 20000, !strings.HasSuffix(tc.name, "-plain"))
				// 20 batches committed every 2 batches: 10 commits.
				if obj["commits"] != float64(10) {
					t.Errorf("%s: commits = %v, want 10", w, obj["commits"])
				}
				d := det[i].(map[string]any)
				checkRequests(t, d, obj, st == "mem")
				// The encode baseline: every row once, one file per commit,
				// with the tables' default compression.
				if d["pqarrow_encode_rows"] != float64(20000) || d["pqarrow_encode_files"] != float64(10) ||
					d["pqarrow_encode_compression"] != "zstd level 1" || d["pqarrow_encode_bytes"].(float64) <= 0 {
					t.Errorf("%s: pqarrow encode of %v rows in %v files of %v bytes with %v; want 20000 rows in 10 files with zstd level 1",
						w, d["pqarrow_encode_rows"], d["pqarrow_encode_files"], d["pqarrow_encode_bytes"], d["pqarrow_encode_compression"])
				}
				if d["input_bytes"] != obj["input_bytes"] || d["metadata_to_put_p50_ratio"] != obj["metadata_to_put_p50_ratio"] ||
					d["encode_ratio"] != obj["encode_ratio"] {
					t.Errorf("%s: detail input_bytes %v, metadata_to_put_p50_ratio %v, encode_ratio %v; json %v, %v, %v", w,
						d["input_bytes"], d["metadata_to_put_p50_ratio"], d["encode_ratio"],
						obj["input_bytes"], obj["metadata_to_put_p50_ratio"], obj["encode_ratio"])
				}
				if st == "mem" && obj["store"] != "mem://" {
					t.Errorf("store = %v, want mem://", obj["store"])
				}
			}
			svg, err := os.ReadFile(filepath.Join(dir, "out.svg"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) || !bytes.Contains(svg, []byte("<svg")) {
				t.Errorf("out.svg is not an SVG document: %.80q", svg)
			}
			// The header, each workload's titles and one legend per
			// workload (beside the plots) with the series every run has
			// (queries and probes depend on timing).
			svgWants := map[string]int{"rtbench: store ": 1, "latency CDF per phase": 3, "commits (blue) and their data files (orange)": 3,
				">commit<": 3, ">data files<": 3, ">store PUT<": 3}
			for text, n := range svgWants {
				if got := bytes.Count(svg, []byte(text)); got != n {
					t.Errorf("out.svg holds %q %d times, want %d", text, got, n)
				}
			}
			wants := []string{"rows verified", "yes (20,000 rows read back)", "yes (3,"}
			if !strings.HasSuffix(tc.name, "-plain") {
				wants = append(wants, "union read too", "real-time layer")
			} else {
				wants = append(wants, "plain writer", "snapshot published")
			}
			for _, want := range wants {
				if !strings.Contains(stdout, want) {
					t.Errorf("summary lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
}

// TestSingleWorkloadJSON: one workload gives one JSON object; the
// real-time writer gets application offsets and commits on an interval.
func TestSingleWorkloadJSON(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	code, stdout, stderr := runCLI(t, "--workload", "pk-agg", "--rows", "20000", "--batch-rows", "5000",
		"--commit-interval", "1ms", "--app-offsets", "--floor-samples", "3", "--json", out, "--plot", filepath.Join(dir, "p.png"),
		"--detail", filepath.Join(dir, "detail.json"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	obj, ok := readJSON(t, out).(map[string]any)
	if !ok {
		t.Fatalf("json is not one object")
	}
	checkRun(t, obj, "pk-agg", 20000)
	det, ok := readJSON(t, filepath.Join(dir, "detail.json")).([]any)
	if !ok || len(det) != 1 {
		t.Fatalf("detail.json is not an array of one run")
	}
	d := det[0].(map[string]any)
	checkRequests(t, d, obj, false)
	// The offsets column of --app-offsets is left out of the encode. A
	// commit on the interval may flush rows whose Write had not returned
	// when it began, which the next commit counts (then it has no file).
	if files, _ := d["pqarrow_encode_files"].(float64); d["pqarrow_encode_rows"] != float64(20000) || files < 1 || files > d["commits"].(float64) {
		t.Errorf("detail: pqarrow encode of %v rows in %v files; want 20000 rows, at most one file per commit (%v)",
			d["pqarrow_encode_rows"], d["pqarrow_encode_files"], d["commits"])
	}
	if lf, _ := d["lookup_freshness_ms"].(map[string]any); d["lookup_probes_missed"] != float64(0) || lf == nil || lf["n"].(float64) < 1 {
		t.Errorf("detail: lookup_probes_missed %v, lookup_freshness_ms %v: want no missed probe and at least one", d["lookup_probes_missed"], d["lookup_freshness_ms"])
	}
	// Every batch of a primary-key workload gets one probe: a union read
	// probe at most every 5 ms, a lookup probe otherwise.
	if lf, _ := d["lookup_freshness_ms"].(map[string]any); lf != nil {
		fr, _ := d["freshness_ms"].(map[string]any)
		if n := lf["n"].(float64) + fr["n"].(float64) + d["freshness_violations"].(float64); n != 4 {
			t.Errorf("detail: %v lookup and %v union read probes for 4 batches", lf["n"], fr["n"])
		}
	}
	if d["workload"] != "pk-agg" || d["realtime"] != true || d["rows_verified"] != true || d["freshness_violations"] != float64(0) {
		t.Errorf("detail: workload %v, realtime %v, rows_verified %v, freshness_violations %v",
			d["workload"], d["realtime"], d["rows_verified"], d["freshness_violations"])
	}
	for _, k := range []string{"commit_ms", "data_files_ms", "metadata_ms", "floor_ms", "freshness_ms", "query_ms", "read_back_ms",
		"manifests_ms", "manifest_lists_ms", "offsets_file_ms", "snapshot_publish_ms", "lost_races", "lost_race_ms"} {
		if _, ok := d[k]; !ok {
			t.Errorf("detail lacks %s", k)
		}
	}
	// Every commit publishes: each reports its manifests, manifest lists,
	// offsets file (real-time progress) and snapshot publish, which are
	// parts of its metadata phase; one committer loses no race.
	commits := d["commits"].(float64)
	meta := d["metadata_ms"].(map[string]any)
	for _, k := range []string{"manifests_ms", "manifest_lists_ms", "offsets_file_ms", "snapshot_publish_ms"} {
		m := d[k].(map[string]any)
		if m["n"] != commits {
			t.Errorf("detail %s.n = %v, want one per commit (%v)", k, m["n"], commits)
		}
		if m["max"].(float64) > meta["max"].(float64) || m["p50"].(float64) <= 0 {
			t.Errorf("detail %s = %v, want within (0, metadata max %v]", k, m, meta["max"])
		}
	}
	if d["lost_races"] != float64(0) || d["lost_race_ms"].(map[string]any)["n"] != float64(0) {
		t.Errorf("detail: lost_races %v, lost_race_ms %v; want none", d["lost_races"], d["lost_race_ms"])
	}
	for _, want := range []string{"manifests ms p50/p99", "manifest lists ms p50/p99", "offsets file ms p50/p99", "snapshot publish ms p50/p99", "lost races"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	png, err := os.ReadFile(filepath.Join(dir, "p.png"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("p.png is not a PNG file")
	}
}

// TestPhaseTimes: the WithTrace callback sums durations per phase and
// counts lost races; phases it does not know are ignored.
func TestPhaseTimes(t *testing.T) {
	var tr phaseTrace
	add := func(p commit.Phase, ms int) { tr.cur.add(p, time.Duration(ms)*time.Millisecond) }
	add(commit.PhaseRetry, 7)
	add(commit.PhaseManifests, 3)
	add(commit.PhaseManifestLists, 2)
	add(commit.PhaseSnapshot, 5)
	add(commit.PhaseRetry, 4)
	add(commit.PhaseSnapshot, 1)
	add(commit.PhaseSnapshot+1, 100)
	got := tr.take()
	// published is when the last PhaseSnapshot was reported.
	if got.published.IsZero() || time.Since(got.published) < 0 {
		t.Errorf("published %v, want the time of the last snapshot phase", got.published)
	}
	got.published = time.Time{}
	want := phaseTimes{retries: 2}
	want.d[commit.PhaseRetry] = 11 * time.Millisecond
	want.d[commit.PhaseManifests] = 3 * time.Millisecond
	want.d[commit.PhaseManifestLists] = 2 * time.Millisecond
	want.d[commit.PhaseSnapshot] = 6 * time.Millisecond
	if got != want {
		t.Errorf("phases %+v, want %+v", got, want)
	}
	if again := tr.take(); again != (phaseTimes{}) {
		t.Errorf("second take %+v, want empty", again)
	}
	r := &result{commits: []commitEvent{{phases: got}, {}}}
	if n, d := r.lostRaces(), r.commitPhaseDist(commit.PhaseRetry); n != 2 || len(d) != 1 || d[0] != 11*time.Millisecond {
		t.Errorf("lost races %d, retry dist %v; want 2 and [11ms] (commits without races left out)", n, d)
	}
	if d := r.commitPhaseDist(commit.PhaseSnapshot); len(d) != 2 || d[0] != 0 || d[1] != 6*time.Millisecond {
		t.Errorf("snapshot dist %v, want [0 6ms]", d)
	}
}

// TestSnapshots: --snapshots N commits every batch until snapshot N.
func TestSnapshots(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	code, stdout, stderr := runCLI(t, "--workload", "pk-dedupe", "--snapshots", "40", "--rows", "1500",
		"--floor-samples", "3", "--store", "mem://", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	obj := readJSON(t, out).(map[string]any)
	// Batches of 100 rows cycling through the first 1,500 flights, one
	// commit each, until snapshot 40 (compactions add snapshots of their
	// own, so up to 40 commits).
	commits, _ := obj["commits"].(float64)
	if commits < 1 || commits > 40 {
		t.Fatalf("commits = %v, want 1..40", obj["commits"])
	}
	checkRun(t, obj, "pk-dedupe", int(commits)*100)
	if !regexp.MustCompile(`snapshot (4\d)\)`).MatchString(stdout) {
		t.Errorf("summary lacks the scaling line ending at snapshot 40 or a little beyond:\n%s", stdout)
	}
}

// TestUsage: bad command lines exit 2 and name the problem.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "upsert"}, `--workload "upsert"`},
		{[]string{"--rows", "0"}, "--rows must be positive"},
		{[]string{"--commit-every", "2", "--commit-interval", "1s"}, "exclude each other"},
		{[]string{"--minio", "--store", "mem://"}, "exclude each other"},
		{[]string{"--minio", "--dir", "/tmp/x"}, "--minio and --dir exclude each other"},
		{[]string{"--plot", "x.jpg"}, ".svg or .png"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"--realtime=false", "--app-offsets"}, "--app-offsets needs --realtime"},
		{[]string{"--json", "/nonexistent-dir/x.json"}, "directory /nonexistent-dir does not exist"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestModelsDetectDifferences: the read-back checks fail on a table that
// differs from what was written, and pass on the exact state.
func TestModelsDetectDifferences(t *testing.T) {
	mem := memory.NewGoAllocator()
	src := flightsBatch(t, mem, []flightRow{
		{date: 1, delay: 10, distance: 100, origin: "SFO", destination: "LAX"},
		{date: 2, delay: -5, distance: 300, origin: "SFO", destination: "LAX"},
		{date: 2, delay: 7, distance: 900, origin: "JFK", destination: "BOS"},
	})
	defer src.Release()

	seq := func(recs ...arrow.RecordBatch) func(func(arrow.RecordBatch, error) bool) {
		return func(yield func(arrow.RecordBatch, error) bool) {
			for _, r := range recs {
				r.Retain()
				if !yield(r, nil) {
					return
				}
			}
		}
	}

	// pk-dedupe: the last flight per route.
	dm := &dedupeModel{routes: map[route]flightRow{}}
	dm.observe(colsOf(src), 3)
	if got := dm.routes[route{"SFO", "LAX"}]; got.date != 2 || got.delay != -5 {
		t.Fatalf("dedupe model SFO-LAX = %+v, want the second flight", got)
	}
	good := dedupeBatch(t, mem, []flightRow{
		{date: 2, delay: 7, distance: 900, origin: "JFK", destination: "BOS"},
		{date: 2, delay: -5, distance: 300, origin: "SFO", destination: "LAX"},
	})
	defer good.Release()
	if n, err := dm.verify(seq(good)); err != nil || n != 2 {
		t.Errorf("dedupe verify of the right state: %d, %v", n, err)
	}
	stale := dedupeBatch(t, mem, []flightRow{
		{date: 2, delay: 7, distance: 900, origin: "JFK", destination: "BOS"},
		{date: 1, delay: 10, distance: 100, origin: "SFO", destination: "LAX"},
	})
	defer stale.Release()
	if _, err := dm.verify(seq(stale)); err == nil || !strings.Contains(err.Error(), "SFO-LAX") {
		t.Errorf("dedupe verify of a stale route: %v", err)
	}
	if _, err := dm.verify(seq(good.NewSlice(0, 1))); err == nil || !strings.Contains(err.Error(), "read 1 routes, wrote 2") {
		t.Errorf("dedupe verify of a missing route: %v", err)
	}

	// pk-agg: sums, counts and max per route.
	am := &aggModel{routes: map[route]*aggRow{}}
	am.observe(colsOf(src), 3)
	if got := *am.routes[route{"SFO", "LAX"}]; got != (aggRow{delaySum: 5, flights: 2, distanceMax: 300}) {
		t.Errorf("agg model SFO-LAX = %+v", got)
	}

	// append: count, sums and rows per month.
	pm := &appendModel{months: map[string]int64{}}
	pm.observe(colsOf(src), 3)
	if pm.rows != 3 || pm.delaySum != 12 || pm.distanceSum != 1300 || pm.months["1970-01"] != 3 {
		t.Errorf("append model %+v", pm)
	}
	built := buildAppend(src)
	defer built.Release()
	read := built.NewSlice(0, 2) // one row lost
	proj, err := project(read, "month", "delay", "distance")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pm.verify(seq(proj)); err == nil || !strings.Contains(err.Error(), "read 2 rows, wrote 3") {
		t.Errorf("append verify of a lost row: %v", err)
	}
	full, err := project(built, "month", "delay", "distance")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := pm.verify(seq(full)); err != nil || n != 3 {
		t.Errorf("append verify of the right rows: %d, %v", n, err)
	}
}

// flightsBatch builds a batch of the flights schema.
func flightsBatch(t *testing.T, mem memory.Allocator, rows []flightRow) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(mem, types.SchemaToArrow(flights.Fields()))
	defer b.Release()
	for _, r := range rows {
		b.Field(flights.Date).(*array.TimestampBuilder).Append(arrow.Timestamp(r.date))
		b.Field(flights.Delay).(*array.Int64Builder).Append(r.delay)
		b.Field(flights.Distance).(*array.Int64Builder).Append(r.distance)
		b.Field(flights.Origin).(*array.StringBuilder).Append(r.origin)
		b.Field(flights.Destination).(*array.StringBuilder).Append(r.destination)
	}
	return b.NewRecordBatch()
}

// dedupeBatch builds a pk-dedupe read (origin, destination, date, delay,
// distance).
func dedupeBatch(t *testing.T, mem memory.Allocator, rows []flightRow) arrow.RecordBatch {
	t.Helper()
	src := flightsBatch(t, mem, rows)
	defer src.Release()
	rec, err := project(src, "origin", "destination", "date", "delay", "distance")
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// project selects columns of rec by name.
func project(rec arrow.RecordBatch, names ...string) (arrow.RecordBatch, error) {
	var fields []arrow.Field
	var cols []arrow.Array
	for _, n := range names {
		idx := rec.Schema().FieldIndices(n)
		if len(idx) != 1 {
			return nil, os.ErrNotExist
		}
		fields = append(fields, rec.Schema().Field(idx[0]))
		cols = append(cols, rec.Column(idx[0]))
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

// TestMinIO runs every workload on 200,000 flights against a MinIO server
// that --minio starts (as CI does): the JSON has every key and the rows
// verify. Without a MinIO binary it is skipped, or fails when CI=true.
func TestMinIO(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MinIO")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	code, stdout, stderr := runCLI(t, "--minio", "--rows", "200000", "--floor-samples", "10", "--json", out)
	if code != 0 {
		if strings.Contains(stderr, "binary not found") && !strings.EqualFold(os.Getenv("CI"), "true") {
			t.Skip(stderr)
		}
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	runs, ok := readJSON(t, out).([]any)
	if !ok || len(runs) != 3 {
		t.Fatalf("json is not an array of 3 runs")
	}
	for i, w := range workloadNames {
		obj := runs[i].(map[string]any)
		checkRun(t, obj, w, 200000)
		if s, _ := obj["store"].(string); !strings.HasPrefix(s, "s3://") {
			t.Errorf("%s: store = %q, want an s3:// bucket", w, s)
		}
	}
}

// TestEmulatorStores runs every workload on 20,000 flights against
// fake-gcs-server (--store gs://…) and Azurite (--store azblob://…): the
// JSON has every key, the rows verify, and the store is the one named.
func TestEmulatorStores(t *testing.T) {
	if testing.Short() {
		t.Skip("starts fake-gcs-server and Azurite")
	}
	for _, st := range []struct {
		name   string
		url    func(testing.TB) string
		scheme string
	}{{"gcs", testenv.FakeGCS, "gs://"}, {"azure", testenv.Azurite, "azblob://"}} {
		t.Run(st.name, func(t *testing.T) {
			store := st.url(t)
			out := filepath.Join(t.TempDir(), "out.json")
			code, stdout, stderr := runCLI(t, "--store", store, "--rows", "20000", "--floor-samples", "10", "--json", out)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			runs, ok := readJSON(t, out).([]any)
			if !ok || len(runs) != 3 {
				t.Fatalf("json is not an array of 3 runs")
			}
			for i, w := range workloadNames {
				obj := runs[i].(map[string]any)
				checkRun(t, obj, w, 20000)
				if s, _ := obj["store"].(string); !strings.HasPrefix(s, st.scheme) {
					t.Errorf("%s: store = %q, want a %s URL", w, s, st.scheme)
				}
			}
		})
	}
}

// TestFollowWorkload: --workload follow on the plain writer and on the
// real-time layer: the follower delivers every row once (rows_verified),
// the --json object carries the follow keys, the summary its rows.
func TestFollowWorkload(t *testing.T) {
	for _, rt := range []string{"false", "true"} {
		t.Run("realtime="+rt, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.json")
			code, stdout, stderr := runCLI(t, "--workload", "follow", "--rows", "20000", "--batch-rows", "2000",
				"--commit-interval", "5ms", "--floor-samples", "3", "--realtime="+rt, "--json", out)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			obj, ok := readJSON(t, out).(map[string]any)
			if !ok {
				t.Fatalf("json is not one object")
			}
			f, ok := obj["follow"].(map[string]any)
			if !ok {
				t.Fatalf("json lacks follow: %v", obj)
			}
			delete(obj, "follow")
			checkRunRT(t, obj, "follow", 20000, rt == "true")
			lat := f["latency_ms"].(map[string]any)
			if f["rows"] != float64(20000) || f["deliveries"].(float64) < 1 || f["deliveries"].(float64) > 10 ||
				lat["p50"].(float64) <= 0 || lat["p50"].(float64) > lat["max"].(float64) {
				t.Errorf("follow = %v", f)
			}
			if !strings.Contains(stdout, "follower: Write → row yielded ms p50/p99/max") || !strings.Contains(stdout, "20,000 (") {
				t.Errorf("summary lacks the follower rows:\n%s", stdout)
			}
		})
	}
	if code, _, stderr := runCLI(t, "--workload", "follow", "--snapshots", "10"); code != 2 || !strings.Contains(stderr, "does not take --snapshots") {
		t.Errorf("follow with --snapshots: exit %d, %s", code, stderr)
	}
}

// TestFollowerAccounting: the follower's check names rows never
// delivered, delivered twice and delivered with another row kind.
func TestFollowerAccounting(t *testing.T) {
	batch := func(kinds []string, pos []int64) arrow.RecordBatch {
		kb := array.NewStringBuilder(memory.DefaultAllocator)
		defer kb.Release()
		kb.AppendValues(kinds, nil)
		pb := array.NewInt64Builder(memory.DefaultAllocator)
		defer pb.Release()
		pb.AppendValues(pos, nil)
		k, p := kb.NewArray(), pb.NewArray()
		defer k.Release()
		defer p.Release()
		sc := arrow.NewSchema([]arrow.Field{{Name: "rowkind", Type: arrow.BinaryTypes.String}, {Name: positionColumn, Type: arrow.PrimitiveTypes.Int64}}, nil)
		return array.NewRecordBatch(sc, []arrow.Array{k, p}, int64(len(pos)))
	}
	for _, tc := range []struct {
		name  string
		kinds []string
		pos   []int64
		want  string
	}{
		{"exact", []string{"+I", "+I", "+I", "+I"}, []int64{0, 1, 2, 3}, ""},
		{"missing", []string{"+I", "+I", "+I"}, []int64{0, 1, 3}, "follower: 1 of 4 rows never delivered"},
		{"twice", []string{"+I", "+I", "+I", "+I", "+I"}, []int64{0, 1, 2, 3, 2}, "follower: 1 rows delivered more than once"},
		{"unknown", []string{"+I", "+I", "+I", "+I", "+I"}, []int64{0, 1, 2, 3, 9}, "follower: 1 rows delivered more than once"},
		{"kind", []string{"+I", "+I", "-D", "+I"}, []int64{0, 1, 2, 3}, "follower: 1 rows delivered with a row kind other than +I"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fo := &follower{rows: 4, done: make(chan struct{}), at: make([]time.Duration, 4)}
			b := batch(tc.kinds, tc.pos)
			fo.account(b, 50*time.Millisecond)
			b.Release()
			close(fo.done)
			res := &result{rows: 4}
			fo.finish(func() {}, res, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}, []int64{2, 4})
			got := ""
			if res.verifyErr != nil {
				got = res.verifyErr.Error()
			}
			if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("check %q, want %q", got, tc.want)
			}
			ms := time.Millisecond
			if tc.name == "exact" && (!slices.Equal(res.follow, dist{30 * ms, 30 * ms, 40 * ms, 40 * ms}) || res.followRows != 4) {
				t.Errorf("latencies %v, rows %d; want 40 ms for rows 0-1 and 30 ms for 2-3", res.follow, res.followRows)
			}
		})
	}
}

// TestServeWorkload: --workload serve runs a server, a writer process and
// the probes, verifies the committed table key by key and writes its JSON.
func TestServeWorkload(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	code, stdout, stderr := runCLI(t, "--workload", "serve", "--rows", "20000", "--batch-rows", "1000", "--floor-samples", "3", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	obj, ok := readJSON(t, out).(map[string]any)
	if !ok {
		t.Fatalf("json is not one object")
	}
	s, ok := obj["serve"].(map[string]any)
	if !ok {
		t.Fatalf("json lacks serve: %v", obj)
	}
	fresh := s["freshness_ms"].(map[string]any)
	inproc := s["in_process_freshness_ms"].(map[string]any)
	if s["rows"] != float64(20000) || s["batches"] != float64(20) || s["verify_error"] != nil ||
		s["verified_keys"].(float64) < 19000 || s["verified_keys"].(float64) > 20000 ||
		fresh["n"].(float64) < 1 || inproc["n"] != float64(20) || s["ingest_flight_rows_per_s"].(float64) <= 0 {
		t.Errorf("serve = %v", s)
	}
	if !strings.Contains(stdout, "serve: 20,000 rows in 20 batches") || !strings.Contains(stdout, "verified:") {
		t.Errorf("summary:\n%s", stdout)
	}
}

// TestMain runs the test binary as the serve workload's writer process when
// the workload starts it so (os.Args[0] is the test binary).
func TestMain(m *testing.M) {
	if os.Getenv(serveWriterEnv) != "" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	testenv.Main(m)
}

// TestMetricsOutput: --metrics writes one JSON line per report: a commit
// and a real-time report per commit of the run, whose committed rows add
// up to the rows written, and scan reports of the queries.
func TestMetricsOutput(t *testing.T) {
	dir := t.TempDir()
	out, mpath := filepath.Join(dir, "out.json"), filepath.Join(dir, "metrics.jsonl")
	code, stdout, stderr := runCLI(t, "--workload", "pk-dedupe", "--rows", "20000", "--floor-samples", "10", "--json", out, "--metrics", mpath)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	run := readJSON(t, out).(map[string]any)
	commits := int(run["commits"].(float64))
	data, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	byOp := map[string]int{}
	var committed, added float64
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		byOp[m["msg"].(string)]++
		switch m["msg"] {
		case "paimon realtime":
			committed += m["committed_rows"].(float64)
		case "paimon commit":
			added += m["added_records"].(float64)
		}
	}
	if commits == 0 || byOp["paimon commit"] != commits || byOp["paimon realtime"] != commits || byOp["paimon scan"] == 0 ||
		committed != 20000 || added <= 0 {
		t.Errorf("%d commits; reports %v, %v rows committed, %v records added", commits, byOp, committed, added)
	}
	if want := fmt.Sprintf("rtbench: --metrics: %d commit, %d realtime, %d scan reports to %s", commits, commits, byOp["paimon scan"], mpath); !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
