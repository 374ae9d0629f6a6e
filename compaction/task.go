package compaction

import (
	"github.com/paimon-go/paimon/manifest"
)

// Step is one action of a primary-key compaction task: either an upgrade
// (Upgrade set: the file keeps its name and moves to the output level) or a
// rewrite (Sections set: the sections' runs are merged and written as new
// files at the output level).
type Step struct {
	// Upgrade is the file to move to the output level, or nil.
	Upgrade *manifest.DataFileMeta
	// Sections are the sorted runs to merge, grouped into sections of
	// overlapping key ranges (IntervalPartition), in key order.
	Sections [][]SortedRun
	// Lookup asks the rewrite to drop records whose key exists on a level
	// above the output level (Java's LookupMergeTreeCompactRewriter with
	// FirstRowMergeFunctionWrapper: a first-row table keeps each key on one
	// level only, the one holding its first row).
	Lookup bool
	// MarkDeleted (deletion-vector tables) marks deleted, in the bucket's
	// deletion vectors, the live version on the levels above the output
	// level of every key the step's level-0 records bring up (Java's
	// LookupMergeTreeCompactRewriter with LookupChangelogMergeFunctionWrapper
	// under a deletion-vector LookupStrategy). With Upgrade set the file
	// keeps its name and only its keys are looked up (CHANGELOG_NO_REWRITE);
	// a rewrite also merges the version found into its output when
	// TaskConfig.LookupMerge says so.
	MarkDeleted bool
	// DropDeletes drops -U and -D records from the rewrite's output.
	DropDeletes bool
}

// TaskConfig steers PlanSteps.
type TaskConfig struct {
	// MaxLevel is the bucket's highest level (Levels.MaxLevel).
	MaxLevel int
	// MinFileSize is the size below which a non-overlapping file is
	// rewritten rather than upgraded: target-file-size ·
	// compaction.small-file-ratio (CoreOptions.compactionFileSize).
	MinFileSize int64
	// DropDeletes is the unit's Levels.DropDeletes.
	DropDeletes bool
	// ForceRewriteAll is compaction.force-rewrite-all-files: no upgrades,
	// every file is rewritten.
	ForceRewriteAll bool
	// FirstRowLookup marks a first-row table, compacted by Java with lookup:
	// level-0 records are rewritten with Step.Lookup instead of upgraded
	// below the highest level.
	FirstRowLookup bool
	// DeletionVectors marks a table with deletion-vectors.enabled, also
	// compacted with lookup: rewrites that bring level-0 records above level
	// 0, and upgrades of level-0 files, get Step.MarkDeleted.
	DeletionVectors bool
	// LookupMerge (with DeletionVectors) marks a merge engine other than
	// deduplicate, or a table with sequence.field: the version found above
	// the output level takes part in the merge (Java
	// PersistValueAndPosProcessor and LookupMergeFunction.insertInto), so a
	// level-0 file below the highest level is rewritten rather than upgraded.
	LookupMerge bool
}

// PlanSteps turns a unit into the steps Java's compaction task performs
// (MergeTreeCompactTask.doCompact, or FileRewriteCompactTask for a
// FileRewrite unit), without any I/O:
//
//   - the unit's files are split into sections (IntervalPartition);
//   - a section with several runs is rewritten, together with the sections
//     gathered before it;
//   - a section of one run is looked at file by file: a file smaller than
//     MinFileSize is gathered for rewriting; a larger file first flushes
//     what was gathered as one rewrite, then is upgraded;
//   - gathered files left at the end are rewritten, except that a lone
//     single-run section is upgraded file by file;
//   - an upgrade becomes a rewrite of that file alone when the output is the
//     highest level and the file holds retractions (or its delete count is
//     unknown), or ForceRewriteAll is set; a file already on the output
//     level stays as it is (no step);
//   - with FirstRowLookup, upgrading a level-0 file below the highest level
//     rewrites it with Lookup (ChangelogMergeTreeRewriter.upgrade), and
//     rewrites of sections holding a level-0 file use Lookup when the output
//     level is above 0;
//   - with DeletionVectors, rewrites of sections holding a level-0 file use
//     MarkDeleted when the output level is above 0, and a level-0 file to be
//     upgraded (LookupMergeTreeCompactRewriter.upgradeStrategy) is rewritten
//     with MarkDeleted and DropDeletes when its delete count is unknown or
//     above 0, or when LookupMerge is set and the output is below the
//     highest level; otherwise it is upgraded with MarkDeleted.
//
// Errors wrap ErrCorrupt (keys that do not decode).
func PlanSteps(u Unit, keys *KeyOrder, cfg TaskConfig) ([]Step, error) {
	if u.FileRewrite {
		var out []Step
		for i := range u.Files {
			out = append(out, cfg.rewriteStep(u.OutputLevel, [][]SortedRun{{{Files: []manifest.DataFileMeta{u.Files[i]}}}}))
		}
		return out, nil
	}
	sections, err := IntervalPartition(u.Files, keys)
	if err != nil {
		return nil, err
	}
	p := &stepPlanner{cfg: cfg, out: u.OutputLevel}
	for _, section := range sections {
		if len(section) > 1 {
			p.candidate = append(p.candidate, section)
			continue
		}
		for _, f := range section[0].Files {
			if f.FileSize < cfg.MinFileSize {
				p.candidate = append(p.candidate, []SortedRun{{Files: []manifest.DataFileMeta{f}}})
			} else {
				p.rewrite()
				p.upgrade(f)
			}
		}
	}
	p.rewrite()
	return p.steps, nil
}

type stepPlanner struct {
	cfg       TaskConfig
	out       int
	candidate [][]SortedRun
	steps     []Step
}

// upgrade is MergeTreeCompactTask.upgrade followed by the rewriter's upgrade.
func (p *stepPlanner) upgrade(f manifest.DataFileMeta) {
	if (p.out == p.cfg.MaxLevel && containsDeletes(&f)) || p.cfg.ForceRewriteAll {
		p.steps = append(p.steps, p.cfg.rewriteStep(p.out, [][]SortedRun{{{Files: []manifest.DataFileMeta{f}}}}))
		return
	}
	if int(f.Level) == p.out {
		return
	}
	up := f
	if f.Level == 0 {
		single := [][]SortedRun{{{Files: []manifest.DataFileMeta{f}}}}
		switch {
		case p.cfg.DeletionVectors:
			// CHANGELOG_WITH_REWRITE drops deletes (forceDropDelete);
			// CHANGELOG_NO_REWRITE only looks the keys up.
			if containsDeletes(&f) || (p.cfg.LookupMerge && p.out != p.cfg.MaxLevel) {
				p.steps = append(p.steps, Step{Sections: single, MarkDeleted: true, DropDeletes: true})
			} else {
				p.steps = append(p.steps, Step{Upgrade: &up, MarkDeleted: true})
			}
			return
		case p.cfg.FirstRowLookup && p.out != p.cfg.MaxLevel:
			// CHANGELOG_WITH_REWRITE without deletion vectors keeps deletes.
			p.steps = append(p.steps, Step{Sections: single, Lookup: true})
			return
		}
	}
	p.steps = append(p.steps, Step{Upgrade: &up})
}

// rewrite is MergeTreeCompactTask.rewrite: a lone single-run section is
// upgraded file by file, anything else is merged.
func (p *stepPlanner) rewrite() {
	if len(p.candidate) == 0 {
		return
	}
	if len(p.candidate) == 1 && len(p.candidate[0]) == 1 {
		files := p.candidate[0][0].Files
		p.candidate = nil
		for _, f := range files {
			p.upgrade(f)
		}
		return
	}
	p.steps = append(p.steps, p.cfg.rewriteStep(p.out, p.candidate))
	p.candidate = nil
}

// rewriteStep is MergeTreeCompactRewriter.rewrite, with the lookup of
// ChangelogMergeTreeRewriter.rewriteLookupChangelog for first-row and
// deletion-vector tables.
func (c TaskConfig) rewriteStep(outputLevel int, sections [][]SortedRun) Step {
	s := Step{Sections: sections, DropDeletes: c.DropDeletes}
	if outputLevel == 0 || !(c.FirstRowLookup || c.DeletionVectors) {
		return s
	}
	for _, sec := range sections {
		for _, r := range sec {
			for _, f := range r.Files {
				if f.Level == 0 {
					s.Lookup = c.FirstRowLookup
					s.MarkDeleted = c.DeletionVectors
					return s
				}
			}
		}
	}
	return s
}

// containsDeletes is MergeTreeCompactTask.containsDeleteRecords: an unknown
// delete count counts as deletes.
func containsDeletes(f *manifest.DataFileMeta) bool {
	return f.DeleteRowCount == nil || *f.DeleteRowCount > 0
}
