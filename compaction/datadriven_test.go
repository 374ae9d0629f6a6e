package compaction

// Data-driven scenarios in testdata/*.txt, one scenario per file, in the
// style of cockroachdb/pebble's datadriven tests. A directive is a command
// line, optional input lines, a "----" line and the expected output lines up
// to the next blank line. Lines starting with '#' outside directives are
// comments.
//
//	options                 table options, one key=value per input line
//	                        (replacing earlier ones); no output
//	define                  the files of one bucket, one per input line:
//	                          NAME L<level> size=N [keys=A-B] [seq=A-B]
//	                          [deletes=N|?] [ctime=MS]
//	                        keys are INT primary keys (default: disjoint
//	                        ranges by line), seq defaults to descending by
//	                        line (the first line is the newest), deletes
//	                        default 0 ("?" = unknown), ctime is the creation
//	                        time in epoch ms (default unset).
//	                        Output: the sorted runs as Levels.Runs gives them,
//	                        "L<level>: names".
//	runs                    sorted runs given directly, one per input line:
//	                          L<level> size=N[,N...]  (one file per size)
//	                        files are named r<run>.<file>; no Levels involved.
//	                        Output: none.
//	pick [full] [now=MS] [last-full=MS] [dv=NAME,NAME...]
//	                        Strategy.Pick (or PickFull) on the runs with the
//	                        options' strategy; now is the clock (UTC),
//	                        last-full the last full compaction (UTC ms), dv
//	                        the files that have a deletion vector.
//	                        Output: "none" or "output=<level> files=<names>
//	                        [drop-deletes] [file-rewrite]" (drop-deletes
//	                        only after define; with deletion vectors
//	                        whenever the output level is above 0, as
//	                        Rewriter.Run does).
//	task                    PlanSteps of the last pick with the options
//	                        (target-file-size, compaction.small-file-ratio,
//	                        compaction.force-rewrite-all-files,
//	                        merge-engine, deletion-vectors.enabled,
//	                        sequence.field). Output one step per line:
//	                        "upgrade NAME L<from> -> L<to> [mark]" or
//	                        "rewrite {[a b] [c]} {[d]} [lookup] [mark]
//	                        [drop-deletes]".
//	simulate-size-amp N START...
//	simulate-size-ratio N START...
//	                        N rounds of: add a level-0 run of size 1 in front,
//	                        then pickForSizeAmp on all runs as level 0 (3
//	                        levels) / pickForSizeRatio on runs at levels
//	                        0,1,2,... (as many levels as runs), replacing the
//	                        picked runs by one of their total size in front
//	                        (Java UniversalCompactionTest's helpers).
//	                        Output: the sizes after each round.
//	create-unit COUNT       UniversalCompaction.createUnit of the first COUNT
//	                        runs; output as for pick.
//	append-pick bucketed|bucketed-full|unaware|unaware-full
//	                        the append pickers on the defined files (all of
//	                        one bucket) with the options; output one line
//	                        per group: "group names".

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

func TestDataDriven(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			runDataDriven(t, f)
		})
	}
}

// directive is one parsed command with its input and expected output.
type directive struct {
	line     int
	cmd      string
	args     []string
	input    []string
	expected []string
}

func parseDirectives(t *testing.T, path string) []directive {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []directive
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		d := directive{line: n, cmd: fields[0], args: fields[1:]}
		sep := false
		for sc.Scan() {
			n++
			l := strings.TrimSpace(sc.Text())
			if l == "----" {
				sep = true
				break
			}
			d.input = append(d.input, l)
		}
		if !sep {
			t.Fatalf("%s:%d: directive %q without ----", path, d.line, d.cmd)
		}
		for sc.Scan() {
			n++
			l := strings.TrimSpace(sc.Text())
			if l == "" {
				break
			}
			d.expected = append(d.expected, l)
		}
		out = append(out, d)
	}
	return out
}

// ddState is the state of one scenario.
type ddState struct {
	t       *testing.T
	opts    schema.Options
	keys    *KeyOrder
	levels  *Levels // after define
	files   []manifest.DataFileMeta
	runs    []LevelSortedRun
	unit    Unit
	picked  bool
	numLvls int
	dvs     *deletionvector.Maintainer // pick's dv=
}

var intKey = []types.DataType{types.Int().NotNull()}

func runDataDriven(t *testing.T, path string) {
	st := &ddState{t: t, opts: schema.Options{}, keys: NewKeyOrder(intKey)}
	for _, d := range parseDirectives(t, path) {
		got, err := st.run(d)
		if err != nil {
			t.Fatalf("%s:%d: %s: %v", path, d.line, d.cmd, err)
		}
		if !slices.Equal(got, d.expected) {
			t.Errorf("%s:%d: %s %s:\ngot:\n  %s\nwant:\n  %s", path, d.line, d.cmd, strings.Join(d.args, " "),
				strings.Join(got, "\n  "), strings.Join(d.expected, "\n  "))
		}
	}
}

func (st *ddState) run(d directive) ([]string, error) {
	switch d.cmd {
	case "options":
		for _, l := range d.input {
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				return nil, fmt.Errorf("option %q is not key=value", l)
			}
			st.opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		return nil, nil
	case "define":
		return st.define(d.input)
	case "runs":
		return nil, st.defineRuns(d.input)
	case "pick":
		return st.pick(d.args)
	case "task":
		return st.task()
	case "simulate-size-amp", "simulate-size-ratio":
		return st.simulate(d.cmd, d.args)
	case "append-pick":
		return st.appendPick(d.args)
	case "create-unit":
		if len(d.args) != 1 {
			return nil, fmt.Errorf("create-unit COUNT")
		}
		n, err := strconv.Atoi(d.args[0])
		if err != nil {
			return nil, err
		}
		s, _, err := st.strategy(nil)
		if err != nil {
			return nil, err
		}
		u := s.createUnit(st.runs, st.numLvls-1, n)
		return []string{fmt.Sprintf("output=%d files=%s", u.OutputLevel, strings.ReplaceAll(names(u.Files), " ", ","))}, nil
	}
	return nil, fmt.Errorf("unknown directive %q", d.cmd)
}

func encodeIntKey(v int32) []byte {
	r, err := row.Encode(intKey, []any{v})
	if err != nil {
		panic(err)
	}
	return row.Serialize(r)
}

func parseRange(s string) (int64, int64, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	lo, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, 0, err
	}
	hi, err := strconv.ParseInt(b, 10, 64)
	return lo, hi, err
}

func parseLevel(s string) (int, error) {
	if !strings.HasPrefix(s, "L") {
		return 0, fmt.Errorf("level %q is not L<n>", s)
	}
	return strconv.Atoi(s[1:])
}

func (st *ddState) define(lines []string) ([]string, error) {
	st.files = nil
	st.picked = false
	for i, l := range lines {
		fs := strings.Fields(l)
		if len(fs) < 3 {
			return nil, fmt.Errorf("file line %q: want NAME L<level> size=N ...", l)
		}
		lvl, err := parseLevel(fs[1])
		if err != nil {
			return nil, err
		}
		zero := int64(0)
		f := manifest.DataFileMeta{FileName: fs[0], Level: int32(lvl), DeleteRowCount: &zero}
		seq := int64(1000 - 10*i)
		f.MinSequenceNumber, f.MaxSequenceNumber = seq, seq
		lo, hi := int64(100*i), int64(100*i+99)
		for _, kv := range fs[2:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "size":
				if f.FileSize, err = strconv.ParseInt(v, 10, 64); err != nil {
					return nil, err
				}
			case "keys":
				if lo, hi, err = parseRange(v); err != nil {
					return nil, err
				}
			case "seq":
				if f.MinSequenceNumber, f.MaxSequenceNumber, err = parseRange(v); err != nil {
					return nil, err
				}
			case "deletes":
				if v == "?" {
					f.DeleteRowCount = nil
				} else {
					n, err := strconv.ParseInt(v, 10, 64)
					if err != nil {
						return nil, err
					}
					f.DeleteRowCount = &n
				}
			case "ctime":
				ms, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, err
				}
				f.CreationTime = &ms
			default:
				return nil, fmt.Errorf("unknown file attribute %q", kv)
			}
		}
		f.MinKey, f.MaxKey = encodeIntKey(int32(lo)), encodeIntKey(int32(hi))
		st.files = append(st.files, f)
	}
	n, err := st.opts.NumLevels()
	if err != nil {
		return nil, err
	}
	st.keys = NewKeyOrder(intKey)
	if st.levels, err = NewLevels(st.files, n, st.keys); err != nil {
		return nil, err
	}
	st.runs = st.levels.Runs()
	st.numLvls = st.levels.NumberOfLevels()
	var out []string
	for _, r := range st.runs {
		out = append(out, fmt.Sprintf("L%d: %s", r.Level, names(r.Run.Files)))
	}
	return out, nil
}

func (st *ddState) defineRuns(lines []string) error {
	st.levels, st.runs, st.picked = nil, nil, false
	st.keys = NewKeyOrder(intKey)
	for i, l := range lines {
		fs := strings.Fields(l)
		if len(fs) != 2 || !strings.HasPrefix(fs[1], "size=") {
			return fmt.Errorf("run line %q: want L<level> size=N[,N...]", l)
		}
		lvl, err := parseLevel(fs[0])
		if err != nil {
			return err
		}
		r := LevelSortedRun{Level: lvl}
		for j, s := range strings.Split(strings.TrimPrefix(fs[1], "size="), ",") {
			size, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return err
			}
			k := int32(1000*i + 10*j)
			r.Run.Files = append(r.Run.Files, manifest.DataFileMeta{
				FileName: fmt.Sprintf("r%d.%d", i, j), FileSize: size, Level: int32(lvl),
				MinKey: encodeIntKey(k), MaxKey: encodeIntKey(k + 9),
			})
		}
		st.runs = append(st.runs, r)
	}
	n, err := st.opts.NumLevels()
	if err != nil {
		return err
	}
	st.numLvls = n
	for _, r := range st.runs {
		st.numLvls = max(st.numLvls, r.Level+1)
	}
	return nil
}

func names(files []manifest.DataFileMeta) string {
	s := make([]string, len(files))
	for i, f := range files {
		s[i] = f.FileName
	}
	return strings.Join(s, " ")
}

func (st *ddState) strategy(args []string) (Strategy, bool, error) {
	s, err := StrategyOf(st.opts)
	if err != nil {
		return s, false, err
	}
	full := false
	now := time.UnixMilli(0).UTC()
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "full":
			full = true
		case "now":
			ms, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return s, false, err
			}
			now = time.UnixMilli(ms).UTC()
		case "dv":
			// Handled by pick.
		case "last-full":
			ms, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return s, false, err
			}
			s.LastFullCompaction = time.UnixMilli(ms).UTC()
		default:
			return s, false, fmt.Errorf("unknown pick argument %q", a)
		}
	}
	s.Now = func() time.Time { return now }
	return s, full, nil
}

// dropDeletes is the drop-delete rule of Rewriter.Run: Levels.DropDeletes,
// and always above level 0 with deletion vectors.
func (st *ddState) dropDeletes(u Unit) (bool, error) {
	dv, err := st.opts.DeletionVectorsEnabled()
	if err != nil {
		return false, err
	}
	return st.levels.DropDeletes(u) || (dv && u.OutputLevel > 0), nil
}

func (st *ddState) pick(args []string) ([]string, error) {
	s, full, err := st.strategy(args)
	if err != nil {
		return nil, err
	}
	st.dvs = nil
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "dv="); ok {
			st.dvs = deletionvector.NewMaintainer(false)
			for _, name := range strings.Split(v, ",") {
				if err := st.dvs.NotifyNewDeletion(name, 0); err != nil {
					return nil, err
				}
			}
		}
	}
	var u Unit
	var ok bool
	if full {
		force, err := st.opts.Bool(KeyForceRewriteAllFiles, false)
		if err != nil {
			return nil, err
		}
		u, ok = PickFull(st.numLvls, st.runs, force, st.dvs)
	} else {
		u, ok = s.Pick(st.numLvls, st.runs)
	}
	st.unit, st.picked = u, ok
	if !ok {
		return []string{"none"}, nil
	}
	out := fmt.Sprintf("output=%d files=%s", u.OutputLevel, strings.ReplaceAll(names(u.Files), " ", ","))
	if st.levels != nil {
		drop, err := st.dropDeletes(u)
		if err != nil {
			return nil, err
		}
		if drop {
			out += " drop-deletes"
		}
	}
	if u.FileRewrite {
		out += " file-rewrite"
	}
	return []string{out}, nil
}

func (st *ddState) task() ([]string, error) {
	if !st.picked || st.levels == nil {
		return nil, fmt.Errorf("task needs a define and a successful pick")
	}
	o := st.opts
	target, err := o.TargetFileSize(true)
	if err != nil {
		return nil, err
	}
	ratio, err := o.CompactionSmallFileRatio()
	if err != nil {
		return nil, err
	}
	force, err := o.Bool(KeyForceRewriteAllFiles, false)
	if err != nil {
		return nil, err
	}
	engine, err := o.MergeEngine()
	if err != nil {
		return nil, err
	}
	dv, err := o.DeletionVectorsEnabled()
	if err != nil {
		return nil, err
	}
	drop, err := st.dropDeletes(st.unit)
	if err != nil {
		return nil, err
	}
	cfg := TaskConfig{
		MaxLevel: st.levels.MaxLevel(), MinFileSize: int64(float64(target) * ratio),
		DropDeletes: drop, ForceRewriteAll: force,
		FirstRowLookup:  engine == schema.MergeFirstRow,
		DeletionVectors: dv,
		LookupMerge:     dv && (engine != schema.MergeDeduplicate || len(o.SequenceField()) > 0),
	}
	steps, err := PlanSteps(st.unit, st.keys, cfg)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range steps {
		if s.Upgrade != nil {
			line := fmt.Sprintf("upgrade %s L%d -> L%d", s.Upgrade.FileName, s.Upgrade.Level, st.unit.OutputLevel)
			if s.MarkDeleted {
				line += " mark"
			}
			out = append(out, line)
			continue
		}
		var b strings.Builder
		b.WriteString("rewrite")
		for _, sec := range s.Sections {
			b.WriteString(" {")
			for i, r := range sec {
				if i > 0 {
					b.WriteString(" ")
				}
				b.WriteString("[" + names(r.Files) + "]")
			}
			b.WriteString("}")
		}
		if s.Lookup {
			b.WriteString(" lookup")
		}
		if s.MarkDeleted {
			b.WriteString(" mark")
		}
		if s.DropDeletes {
			b.WriteString(" drop-deletes")
		}
		out = append(out, b.String())
	}
	if len(out) == 0 {
		out = []string{"nothing"}
	}
	return out, nil
}

func sizedFile(size int64, level int) manifest.DataFileMeta {
	return manifest.DataFileMeta{FileSize: size, Level: int32(level)}
}

func (st *ddState) simulate(cmd string, args []string) ([]string, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("%s N START...", cmd)
	}
	rounds, err := strconv.Atoi(args[0])
	if err != nil {
		return nil, err
	}
	var sizes []int64
	for _, a := range args[1:] {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, n)
	}
	s, _, err := st.strategy(nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for range rounds {
		sizes = append([]int64{1}, sizes...)
		runs := make([]LevelSortedRun, len(sizes))
		for i, sz := range sizes {
			lvl := 0
			if cmd == "simulate-size-ratio" {
				lvl = i
			}
			runs[i] = LevelSortedRun{Level: lvl, Run: SortedRun{Files: []manifest.DataFileMeta{sizedFile(sz, lvl)}}}
		}
		var u Unit
		var ok bool
		if cmd == "simulate-size-amp" {
			u, ok = s.pickForSizeAmp(2, runs)
		} else if len(runs) >= s.NumRunCompactionTrigger {
			u, ok = s.pickForSizeRatio(len(runs)-1, runs, 1, false)
		}
		if ok {
			var total int64
			for _, f := range u.Files {
				total += f.FileSize
			}
			sizes = append([]int64{total}, sizes[len(u.Files):]...)
		}
		strs := make([]string, len(sizes))
		for i, sz := range sizes {
			strs[i] = strconv.FormatInt(sz, 10)
		}
		out = append(out, strings.Join(strs, " "))
	}
	return out, nil
}

func (st *ddState) appendPick(args []string) ([]string, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("append-pick needs one mode")
	}
	o := st.opts
	target, err := o.TargetFileSize(false)
	if err != nil {
		return nil, err
	}
	ratio, err := o.CompactionSmallFileRatio()
	if err != nil {
		return nil, err
	}
	p := AppendPicker{TargetFileSize: target, CompactionFileSize: int64(float64(target) * ratio)}
	if p.MinFileNum, err = o.Int(KeyMinFileNum, 5); err != nil {
		return nil, err
	}
	if p.OpenFileCost, err = o.MemorySize(KeySplitOpenFileCost, 4<<20); err != nil {
		return nil, err
	}
	if p.ForceRewriteAll, err = o.Bool(KeyForceRewriteAllFiles, false); err != nil {
		return nil, err
	}
	var groups [][]manifest.DataFileMeta
	switch args[0] {
	case "bucketed":
		groups = p.PickBucketed(st.files)
	case "bucketed-full":
		if g := p.PickBucketedFull(st.files); g != nil {
			groups = [][]manifest.DataFileMeta{g}
		}
	case "unaware":
		groups = p.PickUnaware(st.files, false)
	case "unaware-full":
		groups = p.PickUnaware(st.files, true)
	default:
		return nil, fmt.Errorf("unknown append-pick mode %q", args[0])
	}
	if len(groups) == 0 {
		return []string{"none"}, nil
	}
	var out []string
	for _, g := range groups {
		out = append(out, "group "+names(g))
	}
	return out, nil
}
