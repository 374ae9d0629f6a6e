package merge

// Lookup merging (Java LookupMergeFunction): tables that keep their levels
// complete by lookup (changelog-producer = lookup, deletion vectors,
// force-lookup) write each compaction output record as the merge of the
// key's whole history, so the record of a key on the lowest level above 0
// already holds every record on the levels below it. A merge of such a
// table takes, per key, that one record and the level-0 records (and
// unwritten records, Java's level -1); records on deeper levels are
// dropped rather than merged a second time, which would count an
// aggregation twice.

// leveledRun is a Run read from one level of a bucket.
type leveledRun struct {
	Run
	level int
}

// AtLevel returns r marked as the sorted run of level (0 for a level-0
// file, -1 for records not written yet). Only a Merger with Options.Lookup
// looks at levels; a Run that is not marked is level 0.
func AtLevel(r Run, level int) Run { return leveledRun{Run: r, level: level} }

// runLevels returns the level of each run (AtLevel), or nil when lookup
// merging is off.
func (m *Merger) runLevels(runs []Run) []int {
	if !m.opts.Lookup {
		return nil
	}
	out := make([]int, len(runs))
	for i, r := range runs {
		if l, ok := r.(leveledRun); ok {
			out[i] = l.level
		}
	}
	return out
}

// pickHighLevel filters the records of one key as
// LookupMergeFunction.getResult does: it keeps the records of runs at level
// 0 or below and, of the records above level 0, the one on the lowest
// level (pickHighLevel). group keeps its order; the result reuses it.
func pickHighLevel(group []entry, levels []int) []entry {
	high := -1
	for i, e := range group {
		if l := levels[e.run]; l > 0 && (high < 0 || l < levels[group[high].run]) {
			high = i
		}
	}
	out := group[:0]
	for i, e := range group {
		if levels[e.run] <= 0 || i == high {
			out = append(out, e)
		}
	}
	return out
}
