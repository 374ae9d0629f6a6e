//go:build interop

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/reader"
)

// Environment variables set by scripts/interop.sh.
const (
	envPython = "PAIMON_INTEROP_PYTHON"  // python of the venv holding pypaimon
	envJavaCP = "PAIMON_INTEROP_JAVA_CP" // class path of interop/java (jar + libs)
	envJava   = "PAIMON_INTEROP_JAVA"    // java binary; default "java"
	envKeep   = "PAIMON_INTEROP_KEEP"    // optional: keep the tables under this directory
)

// peer is another Paimon implementation driven as a subprocess.
type peer struct {
	name string
	// cmd builds the command line for a verb: "write OUTDIR", "read TABLE",
	// "apply TABLE ROWS_JSONL".
	cmd func(ctx context.Context, verb string, args ...string) *exec.Cmd
	// missing says why the peer is not configured ("" when it is).
	missing string
}

func pythonPeer() peer {
	p := peer{name: "pypaimon"}
	py := os.Getenv(envPython)
	if py == "" {
		p.missing = envPython + " is not set (run scripts/interop.sh)"
		return p
	}
	dir, _ := filepath.Abs("python")
	p.cmd = func(ctx context.Context, verb string, args ...string) *exec.Cmd {
		script := map[string]string{
			"write": "write_tables.py", "read": "read_table.py", "apply": "apply_rows.py",
		}[verb]
		c := exec.CommandContext(ctx, py, append([]string{filepath.Join(dir, script)}, args...)...)
		c.Dir = dir
		c.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1") // keep the work tree clean
		return c
	}
	return p
}

func javaPeer() peer {
	p := peer{name: "java"}
	cp := os.Getenv(envJavaCP)
	if cp == "" {
		p.missing = envJavaCP + " is not set (run scripts/interop.sh)"
		return p
	}
	java := os.Getenv(envJava)
	if java == "" {
		java = "java"
	}
	p.cmd = func(ctx context.Context, verb string, args ...string) *exec.Cmd {
		return exec.CommandContext(ctx, java,
			append([]string{"-cp", cp, "org.paimongo.interop.Main", verb}, args...)...)
	}
	return p
}

// run runs the peer verb and returns its standard output; the error carries
// the tail of standard error.
func (p peer) run(ctx context.Context, verb string, args ...string) ([]byte, error) {
	if p.missing != "" {
		return nil, fmt.Errorf("%s not configured: %s", p.name, p.missing)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	c := p.cmd(ctx, verb, args...)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		tail := stderr.String()
		if len(tail) > 3000 {
			tail = "..." + tail[len(tail)-3000:]
		}
		return nil, fmt.Errorf("%s %s %s: %w\n%s", p.name, verb, strings.Join(args, " "), err, tail)
	}
	return stdout.Bytes(), nil
}

// listing is the tables.json a peer writer leaves in its output directory.
type listing struct {
	Writer string `json:"writer"`
	Tables []struct {
		Name     string `json:"name"`
		Path     string `json:"path"`
		Expected string `json:"expected"`
		Commits  int    `json:"commits"`
		// AllLevels asks the reader to merge level-0 files too (see Note);
		// DefaultRows is then the row count of a default scan, as Java reads it.
		AllLevels   bool   `json:"all_levels"`
		DefaultRows int    `json:"default_rows"`
		Note        string `json:"note"`
	} `json:"tables"`
}

func readListing(dir string) (*listing, error) {
	b, err := os.ReadFile(filepath.Join(dir, "tables.json"))
	if err != nil {
		return nil, err
	}
	var l listing
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("tables.json: %w", err)
	}
	if len(l.Tables) == 0 {
		return nil, fmt.Errorf("tables.json in %s lists no table", dir)
	}
	return &l, nil
}

// readGo reads a table with our reader exactly as `paimon cat --format jsonl`
// does and returns the JSONL output.
func readGo(ctx context.Context, tablePath string, allLevels bool) ([]byte, error) {
	var opts []reader.Option
	if allLevels {
		opts = append(opts, reader.WithAllLevels())
	}
	return tabletest.Cat(ctx, tablePath, opts...)
}

// canonicalRows parses JSONL and re-encodes every row canonically: object keys
// sorted, numbers spelled one way (integers exactly; other numbers as the
// shortest float64 spelling, integral ones below 1e18 as integers), so that
// 1e-07, 1E-7 and 1e-7 compare equal, as do 1.0 and 1. Strings, nulls,
// booleans and array order are compared as they are.
func canonicalRows(data []byte) ([]string, error) {
	var out []string
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, fmt.Errorf("line %d is not a JSON object: %q", i+1, line)
		}
		b, err := json.Marshal(canonicalValue(v))
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

func canonicalValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				return x
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "unparsable number " + s
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e18 {
			return json.Number(strconv.FormatInt(int64(f), 10))
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case map[string]any:
		for k, e := range x {
			x[k] = canonicalValue(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = canonicalValue(e)
		}
		return x
	default:
		return v
	}
}

// sortArrays orders the elements of every array in v (recursively) by their
// JSON encoding, for peers whose collections hold the right elements in
// another order (peerDeviates).
func sortArrays(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = sortArrays(e)
		}
		return x
	case []any:
		keys := make([]string, len(x))
		for i, e := range x {
			x[i] = sortArrays(e)
			b, _ := json.Marshal(x[i])
			keys[i] = string(b)
		}
		idx := make([]int, len(x))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
		out := make([]any, len(x))
		for i, j := range idx {
			out[i] = x[j]
		}
		return out
	default:
		return v
	}
}

// unorderedArrays re-encodes JSONL with every array's elements sorted
// (sortArrays).
func unorderedArrays(data []byte) ([]byte, error) {
	var out bytes.Buffer
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
		b, err := json.Marshal(sortArrays(v))
		if err != nil {
			return nil, err
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// diffRows compares two JSONL outputs as multisets of canonical rows and
// returns "" when they are equal, else a description of the rows missing from
// got and the rows got has in excess (at most 8 of each).
func diffRows(want, got []byte) (string, error) {
	w, err := canonicalRows(want)
	if err != nil {
		return "", fmt.Errorf("expected rows: %w", err)
	}
	g, err := canonicalRows(got)
	if err != nil {
		return "", fmt.Errorf("rows read: %w", err)
	}
	count := map[string]int{}
	for _, r := range w {
		count[r]++
	}
	for _, r := range g {
		count[r]--
	}
	var missing, extra []string
	for r, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, r)
		}
		for ; n < 0; n++ {
			extra = append(extra, r)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return "", nil
	}
	sort.Strings(missing)
	sort.Strings(extra)
	var sb strings.Builder
	fmt.Fprintf(&sb, "expected %d rows, read %d; %d missing, %d unexpected", len(w), len(g), len(missing), len(extra))
	for i, r := range missing {
		if i == 8 {
			fmt.Fprintf(&sb, "\n  ... %d more missing", len(missing)-i)
			break
		}
		fmt.Fprintf(&sb, "\n  missing:    %s", r)
	}
	for i, r := range extra {
		if i == 8 {
			fmt.Fprintf(&sb, "\n  ... %d more unexpected", len(extra)-i)
			break
		}
		fmt.Fprintf(&sb, "\n  unexpected: %s", r)
	}
	return sb.String(), nil
}
