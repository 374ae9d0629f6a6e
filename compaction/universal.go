package compaction

import (
	"fmt"
	"time"

	"github.com/paimon-go/paimon/deletionvector"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/schema"
)

// Unit is what a compaction strategy picks in one bucket (Java CompactUnit):
// the files to compact and the level the result goes to. FileRewrite marks a
// unit whose files are each rewritten on their own instead of merged (Java's
// FileRewriteCompactTask, used when a full compaction finds a single run on
// the highest level that compaction.force-rewrite-all-files asks to rewrite).
type Unit struct {
	OutputLevel int
	Files       []manifest.DataFileMeta
	FileRewrite bool
}

// unitOf is CompactUnit.fromLevelRuns.
func unitOf(outputLevel int, runs []LevelSortedRun) Unit {
	var files []manifest.DataFileMeta
	for _, r := range runs {
		files = append(files, r.Run.Files...)
	}
	return Unit{OutputLevel: outputLevel, Files: files}
}

// Table options read by StrategyOf (Java CoreOptions keys).
const (
	KeyNumSortedRunCompactionTrigger = "num-sorted-run.compaction-trigger"
	KeyMaxSizeAmplificationPercent   = "compaction.max-size-amplification-percent"
	KeySizeRatio                     = "compaction.size-ratio"
	KeyForceUpLevel0                 = "compaction.force-up-level-0"
	KeyOptimizationInterval          = "compaction.optimization-interval"
	KeyTotalSizeThreshold            = "compaction.total-size-threshold"
	KeyIncrementalSizeThreshold      = "compaction.incremental-size-threshold"
	KeyOffPeakStartHour              = "compaction.offpeak.start.hour"
	KeyOffPeakEndHour                = "compaction.offpeak.end.hour"
	KeyOffPeakRatio                  = "compaction.offpeak-ratio"
	KeyForceRewriteAllFiles          = "compaction.force-rewrite-all-files"
	KeySmallFileRatio                = "compaction.small-file-ratio"
	KeyMinFileNum                    = "compaction.min.file-num"
	KeySplitOpenFileCost             = "source.split.open-file-cost"
)

// Strategy is Java's universal compaction strategy for primary-key buckets
// (org.apache.paimon.mergetree.compact.UniversalCompaction, with
// EarlyFullCompaction, OffPeakHours and, when ForceUpLevel0 is set,
// ForceUpLevel0Compaction). Build it with StrategyOf; Pick may update
// LastFullCompaction, so use one Strategy per bucket.
type Strategy struct {
	// NumRunCompactionTrigger is num-sorted-run.compaction-trigger (default 5).
	NumRunCompactionTrigger int
	// MaxSizeAmplificationPercent is
	// compaction.max-size-amplification-percent (default 200).
	MaxSizeAmplificationPercent int
	// SizeRatio is compaction.size-ratio in percent (default 1).
	SizeRatio int
	// ForceUpLevel0 makes Pick take all level-0 files when the universal
	// rules pick nothing (ForceUpLevel0Compaction in lookup-compact mode
	// radical): compaction.force-up-level-0, and always for tables that need
	// lookup compaction (CoreOptions.needLookup: merge-engine = first-row,
	// deletion-vectors.enabled).
	ForceUpLevel0 bool

	// OptimizationInterval is compaction.optimization-interval; 0 = unset.
	// A full compaction is picked when none happened for longer.
	OptimizationInterval time.Duration
	// TotalSizeThreshold is compaction.total-size-threshold in bytes; 0 =
	// unset. A full compaction is picked when all runs together are smaller.
	TotalSizeThreshold int64
	// IncrementalSizeThreshold is compaction.incremental-size-threshold in
	// bytes; 0 = unset. A full compaction is picked when the runs below the
	// highest level are larger.
	IncrementalSizeThreshold int64
	// LastFullCompaction is when the last full compaction happened; the zero
	// time means never. StrategyOf leaves it zero: Plan sets it from the
	// creation time of the newest highest-level file, as Java's
	// MergeTreeCompactManagerFactory.estimateLastFullCompactionTime does.
	LastFullCompaction time.Time

	// OffPeakStartHour and OffPeakEndHour (compaction.offpeak.start.hour,
	// compaction.offpeak.end.hour; -1 = disabled) delimit the off-peak hours
	// [start, end) of the local clock during which OffPeakRatio
	// (compaction.offpeak-ratio) is added to SizeRatio.
	OffPeakStartHour, OffPeakEndHour, OffPeakRatio int

	// Now is the clock of the time rules; nil means time.Now.
	Now func() time.Time
}

// StrategyOf reads the strategy from table options with Java's defaults.
// Errors wrap schema.ErrInvalidOption and name the key.
func StrategyOf(o schema.Options) (Strategy, error) {
	var s Strategy
	var err error
	if s.NumRunCompactionTrigger, err = o.NumSortedRunCompactionTrigger(); err != nil {
		return s, err
	}
	if s.MaxSizeAmplificationPercent, err = o.CompactionMaxSizeAmplificationPercent(); err != nil {
		return s, err
	}
	if s.SizeRatio, err = o.CompactionSizeRatio(); err != nil {
		return s, err
	}
	if s.ForceUpLevel0, err = o.CompactionForceUpLevel0(); err != nil {
		return s, err
	}
	engine, err := o.MergeEngine()
	if err != nil {
		return s, err
	}
	dv, err := o.DeletionVectorsEnabled()
	if err != nil {
		return s, err
	}
	cp, err := o.ChangelogProducer()
	if err != nil {
		return s, err
	}
	// CoreOptions.needLookup: MergeTreeCompactManagerFactory wraps the
	// strategy in ForceUpLevel0Compaction.
	if engine == schema.MergeFirstRow || dv || cp == schema.ChangelogLookup {
		s.ForceUpLevel0 = true
	}
	if _, ok := o.Get(KeyOptimizationInterval); ok {
		if s.OptimizationInterval, err = o.Duration(KeyOptimizationInterval, 0); err != nil {
			return s, err
		}
	}
	if s.TotalSizeThreshold, err = o.MemorySize(KeyTotalSizeThreshold, 0); err != nil {
		return s, err
	}
	if s.IncrementalSizeThreshold, err = o.MemorySize(KeyIncrementalSizeThreshold, 0); err != nil {
		return s, err
	}
	if s.OffPeakStartHour, err = o.Int(KeyOffPeakStartHour, -1); err != nil {
		return s, err
	}
	if s.OffPeakEndHour, err = o.Int(KeyOffPeakEndHour, -1); err != nil {
		return s, err
	}
	if s.OffPeakRatio, err = o.Int(KeyOffPeakRatio, 0); err != nil {
		return s, err
	}
	if s.NumRunCompactionTrigger < 1 {
		return s, fmt.Errorf("%w: %s = %d must be positive", schema.ErrInvalidOption, KeyNumSortedRunCompactionTrigger, s.NumRunCompactionTrigger)
	}
	return s, nil
}

func (s *Strategy) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Pick chooses the runs to compact among runs (newest first, as
// Levels.Runs returns them) of a bucket with numLevels levels, exactly as
// Java's UniversalCompaction.pick (wrapped in ForceUpLevel0Compaction when
// ForceUpLevel0 is set) followed by MergeTreeCompactManager's filter (a unit
// of one file already at its output level is no compaction):
//
//  0. early full compaction (optimization interval, total size threshold,
//     incremental size threshold) of all runs into the highest level;
//  1. size amplification: with at least NumRunCompactionTrigger runs, when
//     100 · size(all runs but the oldest) > MaxSizeAmplificationPercent ·
//     size(oldest run), all runs go to the highest level;
//  2. size ratio: with at least NumRunCompactionTrigger runs, starting from
//     the newest run, the next run joins while candidateSize · (100 +
//     SizeRatio [+ OffPeakRatio]) / 100 >= its size, or while it is on level 0
//     or 1 once two runs are taken; a unit needs two runs;
//  3. run count: with more than NumRunCompactionTrigger runs, the newest
//     #runs - trigger + 1 runs are taken and extended by the size-ratio rule;
//  4. with ForceUpLevel0, all level-0 runs (extended by the size-ratio rule).
//
// The output level is the highest level when every run is taken, else the
// level of the first run not taken minus 1; an output level 0 takes further
// runs up to and including the first run above level 0, whose level becomes
// the output level (UniversalCompaction.createUnit).
func (s *Strategy) Pick(numLevels int, runs []LevelSortedRun) (Unit, bool) {
	u, ok := s.pick(numLevels, runs)
	if !ok && s.ForceUpLevel0 {
		u, ok = s.forcePickL0(numLevels, runs)
	}
	if !ok || len(u.Files) == 0 {
		return Unit{}, false
	}
	if len(u.Files) == 1 && int(u.Files[0].Level) == u.OutputLevel {
		return Unit{}, false
	}
	return u, true
}

func (s *Strategy) pick(numLevels int, runs []LevelSortedRun) (Unit, bool) {
	maxLevel := numLevels - 1
	if u, ok := s.tryFullCompact(numLevels, runs); ok {
		return u, true
	}
	if u, ok := s.pickForSizeAmp(maxLevel, runs); ok {
		return u, true
	}
	if len(runs) >= s.NumRunCompactionTrigger {
		if u, ok := s.pickForSizeRatio(maxLevel, runs, 1, false); ok {
			return u, true
		}
	}
	if len(runs) > s.NumRunCompactionTrigger {
		return s.pickForSizeRatio(maxLevel, runs, len(runs)-s.NumRunCompactionTrigger+1, false)
	}
	return Unit{}, false
}

// earlyFull reports whether any early-full-compaction rule is configured
// (EarlyFullCompaction.create returns null otherwise).
func (s *Strategy) earlyFull() bool {
	return s.OptimizationInterval > 0 || s.TotalSizeThreshold > 0 || s.IncrementalSizeThreshold > 0
}

func (s *Strategy) markFull() {
	if s.earlyFull() {
		s.LastFullCompaction = s.now()
	}
}

// tryFullCompact is EarlyFullCompaction.tryFullCompact.
func (s *Strategy) tryFullCompact(numLevels int, runs []LevelSortedRun) (Unit, bool) {
	if !s.earlyFull() || len(runs) == 1 {
		return Unit{}, false
	}
	maxLevel := numLevels - 1
	if s.OptimizationInterval > 0 {
		if s.LastFullCompaction.IsZero() || s.now().Sub(s.LastFullCompaction) > s.OptimizationInterval {
			s.markFull()
			return unitOf(maxLevel, runs), true
		}
	}
	if s.TotalSizeThreshold > 0 {
		var total int64
		for _, r := range runs {
			total += r.Run.TotalSize()
		}
		if total < s.TotalSizeThreshold {
			s.markFull()
			return unitOf(maxLevel, runs), true
		}
	}
	if s.IncrementalSizeThreshold > 0 {
		var inc int64
		for _, r := range runs {
			if r.Level != maxLevel {
				inc += r.Run.TotalSize()
			}
		}
		if inc > s.IncrementalSizeThreshold {
			s.markFull()
			return unitOf(maxLevel, runs), true
		}
	}
	return Unit{}, false
}

// pickForSizeAmp is UniversalCompaction.pickForSizeAmp.
func (s *Strategy) pickForSizeAmp(maxLevel int, runs []LevelSortedRun) (Unit, bool) {
	if len(runs) < s.NumRunCompactionTrigger || len(runs) == 0 {
		return Unit{}, false
	}
	var candidate int64
	for _, r := range runs[:len(runs)-1] {
		candidate += r.Run.TotalSize()
	}
	earliest := runs[len(runs)-1].Run.TotalSize()
	if candidate*100 > int64(s.MaxSizeAmplificationPercent)*earliest {
		s.markFull()
		return unitOf(maxLevel, runs), true
	}
	return Unit{}, false
}

// pickForSizeRatio is UniversalCompaction.pickForSizeRatio(maxLevel, runs,
// candidateCount, forcePick).
func (s *Strategy) pickForSizeRatio(maxLevel int, runs []LevelSortedRun, count int, force bool) (Unit, bool) {
	var size int64
	for i := 0; i < count && i < len(runs); i++ {
		size += runs[i].Run.TotalSize()
	}
	triggered := force || count > 1
	ratio := float64(100+s.SizeRatio+s.offPeakRatio()) / 100.0
	for i := count; i < len(runs); i++ {
		next := runs[i]
		if float64(size)*ratio < float64(next.Run.TotalSize()) {
			if !triggered || next.Level > 1 {
				break
			}
		}
		size += next.Run.TotalSize()
		count++
		triggered = true
	}
	if !triggered {
		return Unit{}, false
	}
	return s.createUnit(runs, maxLevel, count), true
}

// offPeakRatio is OffPeakHours.currentRatio of the local hour.
func (s *Strategy) offPeakRatio() int {
	start, end := s.OffPeakStartHour, s.OffPeakEndHour
	if start == -1 || end == -1 || start == end {
		return 0
	}
	h := s.now().Hour()
	var off bool
	if start <= end {
		off = start <= h && h < end
	} else {
		off = h < end || start <= h
	}
	if off {
		return s.OffPeakRatio
	}
	return 0
}

// createUnit is UniversalCompaction.createUnit.
func (s *Strategy) createUnit(runs []LevelSortedRun, maxLevel, count int) Unit {
	var out int
	if count == len(runs) {
		out = maxLevel
	} else {
		out = max(0, runs[count].Level-1)
	}
	if out == 0 {
		for i := count; i < len(runs); i++ {
			count++
			if runs[i].Level != 0 {
				out = runs[i].Level
				break
			}
		}
	}
	if count == len(runs) {
		s.markFull()
		out = maxLevel
	}
	return unitOf(out, runs[:count])
}

// forcePickL0 is UniversalCompaction.forcePickL0.
func (s *Strategy) forcePickL0(numLevels int, runs []LevelSortedRun) (Unit, bool) {
	n := 0
	for n < len(runs) && runs[n].Level == 0 {
		n++
	}
	if n == 0 {
		return Unit{}, false
	}
	return s.pickForSizeRatio(numLevels-1, runs, n, true)
}

// PickFull is CompactStrategy.pickFullCompaction: every run of the bucket
// goes to the highest level (numLevels - 1). When the only run is already
// on the highest level, its files are rewritten one by one (a FileRewrite
// unit) if forceRewriteAll (compaction.force-rewrite-all-files) asks for all
// of them, else those that have a deletion vector in dvs (nil for tables
// without deletion vectors), so that full compaction leaves no deleted rows
// behind; nothing is picked when no file qualifies or there are no runs.
func PickFull(numLevels int, runs []LevelSortedRun, forceRewriteAll bool, dvs *deletionvector.Maintainer) (Unit, bool) {
	maxLevel := numLevels - 1
	if len(runs) == 0 {
		return Unit{}, false
	}
	if len(runs) == 1 && runs[0].Level == maxLevel {
		var files []manifest.DataFileMeta
		for _, f := range runs[0].Run.Files {
			if forceRewriteAll || (dvs != nil && dvs.DeletionVectorOf(f.FileName) != nil) {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			return Unit{}, false
		}
		return Unit{OutputLevel: maxLevel, Files: files, FileRewrite: true}, true
	}
	return unitOf(maxLevel, runs), true
}
