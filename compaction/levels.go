package compaction

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// SortedRun is a list of data files of one bucket whose key ranges do not
// overlap, ordered by minimum key (Java org.apache.paimon.mergetree.SortedRun).
// Reading its files one after the other yields records sorted by key.
type SortedRun struct {
	Files []manifest.DataFileMeta
}

// TotalSize returns the sum of the files' sizes in bytes
// (SortedRun.totalSize).
func (r SortedRun) TotalSize() int64 {
	var n int64
	for i := range r.Files {
		n += r.Files[i].FileSize
	}
	return n
}

// LevelSortedRun is a sorted run together with its LSM level (Java
// LevelSortedRun): a single file for level 0, all files of the level above.
type LevelSortedRun struct {
	Level int
	Run   SortedRun
}

// KeyOrder compares the trimmed primary keys stored in DataFileMeta.MinKey and
// MaxKey (serialized BinaryRows) as Java's key comparator does (types.Compare
// column by column, nulls first). It caches decoded keys by file name, so use
// one KeyOrder per bucket. It is not safe for concurrent use.
type KeyOrder struct {
	types []types.DataType
	cache map[string][2][]any
}

// NewKeyOrder returns a KeyOrder for keys of the given types (the trimmed
// primary key fields' types, in key order).
func NewKeyOrder(keyTypes []types.DataType) *KeyOrder {
	return &KeyOrder{types: keyTypes, cache: map[string][2][]any{}}
}

// Compare orders two decoded keys: negative, zero or positive.
func (o *KeyOrder) Compare(a, b []any) int {
	for i, t := range o.types {
		if c := types.Compare(t, a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// Keys returns f's decoded minimum and maximum key. Errors wrap ErrCorrupt
// (a key that does not decode with the key types) and name the file.
func (o *KeyOrder) Keys(f *manifest.DataFileMeta) (minKey, maxKey []any, err error) {
	if k, ok := o.cache[f.FileName]; ok {
		return k[0], k[1], nil
	}
	if minKey, err = o.decode(f.MinKey); err != nil {
		return nil, nil, fmt.Errorf("%w: min key of %s: %w", ErrCorrupt, f.FileName, err)
	}
	if maxKey, err = o.decode(f.MaxKey); err != nil {
		return nil, nil, fmt.Errorf("%w: max key of %s: %w", ErrCorrupt, f.FileName, err)
	}
	o.cache[f.FileName] = [2][]any{minKey, maxKey}
	return minKey, maxKey, nil
}

func (o *KeyOrder) decode(b []byte) ([]any, error) {
	r, err := row.Deserialize(b)
	if err != nil {
		return nil, err
	}
	k, err := row.Decode(o.types, r)
	if err != nil {
		return nil, err
	}
	if len(k) != len(o.types) {
		return nil, fmt.Errorf("key has %d fields, want %d", len(k), len(o.types))
	}
	return k, nil
}

// Levels holds the data files of one bucket arranged as an LSM tree (Java
// org.apache.paimon.mergetree.Levels): every level-0 file is a sorted run of
// its own, ordered newest first; every higher level is one sorted run.
type Levels struct {
	level0 []manifest.DataFileMeta // newest first
	levels []SortedRun             // levels[i] is level i+1
	keys   *KeyOrder
}

// NewLevels arranges files into levels. numLevels is the table's num-levels;
// as in Java it is raised to hold the highest level present in files, and it
// must be at least 2. Level-0 files are ordered by maximum sequence number
// descending, then minimum sequence number, creation time and file name
// ascending (Java's level-0 TreeSet comparator); files of a higher level by
// minimum key.
//
// Errors wrap ErrInvalidArgument (fewer than 2 levels, a negative level, two
// files of one name) or ErrCorrupt (a key that does not decode).
func NewLevels(files []manifest.DataFileMeta, numLevels int, keys *KeyOrder) (*Levels, error) {
	n := numLevels
	seen := make(map[string]bool, len(files))
	for i := range files {
		f := &files[i]
		if f.Level < 0 {
			return nil, fmt.Errorf("%w: file %s has level %d", ErrInvalidArgument, f.FileName, f.Level)
		}
		if seen[f.FileName] {
			return nil, fmt.Errorf("%w: file %s appears twice in one bucket", ErrInvalidArgument, f.FileName)
		}
		seen[f.FileName] = true
		n = max(n, int(f.Level)+1)
	}
	if n < 2 {
		return nil, fmt.Errorf("%w: number of levels must be at least 2, got %d", ErrInvalidArgument, n)
	}
	l := &Levels{levels: make([]SortedRun, n-1), keys: keys}
	for _, f := range files {
		if f.Level == 0 {
			l.level0 = append(l.level0, f)
		} else {
			l.levels[f.Level-1].Files = append(l.levels[f.Level-1].Files, f)
		}
	}
	slices.SortFunc(l.level0, compareLevel0)
	for i := range l.levels {
		if err := sortByMinKey(l.levels[i].Files, keys); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// compareLevel0 is Java's level-0 order: newest (largest maximum sequence
// number) first.
func compareLevel0(a, b manifest.DataFileMeta) int {
	if c := cmp.Compare(b.MaxSequenceNumber, a.MaxSequenceNumber); c != 0 {
		return c
	}
	if c := cmp.Compare(a.MinSequenceNumber, b.MinSequenceNumber); c != 0 {
		return c
	}
	if c := compareCreation(a.CreationTime, b.CreationTime); c != 0 {
		return c
	}
	return cmp.Compare(a.FileName, b.FileName)
}

func compareCreation(a, b *int64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}

// sortByMinKey orders the files of one level by minimum key
// (SortedRun.fromUnsorted).
func sortByMinKey(files []manifest.DataFileMeta, keys *KeyOrder) error {
	for i := range files {
		if _, _, err := keys.Keys(&files[i]); err != nil {
			return err
		}
	}
	slices.SortStableFunc(files, func(a, b manifest.DataFileMeta) int {
		ka, _, _ := keys.Keys(&a)
		kb, _, _ := keys.Keys(&b)
		return keys.Compare(ka, kb)
	})
	return nil
}

// Update replaces files of the bucket (Java Levels.update, as the writer's
// compact manager applies new level-0 files and compaction results): every
// file of before is removed from its level (matched by name), every file of
// after is added to its level; level 0 stays ordered newest first, a higher
// level by minimum key (with the KeyOrder given to NewLevels). Errors wrap ErrInvalidArgument (a file of after on a
// level above the highest, or already present) or ErrCorrupt (a key that
// does not decode); then l is unchanged.
func (l *Levels) Update(before, after []manifest.DataFileMeta) error {
	gone := make(map[string]bool, len(before))
	for _, f := range before {
		gone[f.FileName] = true
	}
	present := map[string]bool{}
	for _, f := range l.AllFiles() {
		if !gone[f.FileName] {
			present[f.FileName] = true
		}
	}
	for _, f := range after {
		switch {
		case f.Level < 0 || int(f.Level) > l.MaxLevel():
			return fmt.Errorf("%w: file %s has level %d, the bucket has levels 0 to %d", ErrInvalidArgument, f.FileName, f.Level, l.MaxLevel())
		case present[f.FileName]:
			return fmt.Errorf("%w: file %s appears twice in one bucket", ErrInvalidArgument, f.FileName)
		}
		present[f.FileName] = true
		if f.Level > 0 {
			if _, _, err := l.keys.Keys(&f); err != nil {
				return err
			}
		}
	}
	keep := func(files []manifest.DataFileMeta) []manifest.DataFileMeta {
		return slices.DeleteFunc(slices.Clone(files), func(f manifest.DataFileMeta) bool { return gone[f.FileName] })
	}
	level0 := keep(l.level0)
	levels := make([]SortedRun, len(l.levels))
	for i, r := range l.levels {
		levels[i].Files = keep(r.Files)
	}
	for _, f := range after {
		if f.Level == 0 {
			level0 = append(level0, f)
		} else {
			levels[f.Level-1].Files = append(levels[f.Level-1].Files, f)
		}
	}
	slices.SortFunc(level0, compareLevel0)
	for i := range levels {
		if err := sortByMinKey(levels[i].Files, l.keys); err != nil {
			return err
		}
	}
	l.level0, l.levels = level0, levels
	return nil
}

// AllFiles returns every file of the bucket: level 0 newest first, then
// levels 1, 2, ... each by minimum key (Levels.allFiles).
func (l *Levels) AllFiles() []manifest.DataFileMeta {
	out := slices.Clone(l.level0)
	for _, r := range l.levels {
		out = append(out, r.Files...)
	}
	return out
}

// FileNames returns the names of files, in order.
func FileNames(files []manifest.DataFileMeta) []string {
	out := make([]string, len(files))
	for i := range files {
		out[i] = files[i].FileName
	}
	return out
}

// Clone returns a copy of l that later Updates of either do not affect
// (the files' metadata is shared, never modified). The copy shares l's
// KeyOrder, so it is not safe to Update both concurrently; reading a clone
// while l is updated is safe.
func (l *Levels) Clone() *Levels {
	c := &Levels{level0: slices.Clone(l.level0), levels: make([]SortedRun, len(l.levels)), keys: l.keys}
	for i, r := range l.levels {
		c.levels[i].Files = slices.Clone(r.Files)
	}
	return c
}

// NumberOfLevels returns the number of levels, level 0 included.
func (l *Levels) NumberOfLevels() int { return len(l.levels) + 1 }

// MaxLevel returns the highest level, NumberOfLevels() - 1.
func (l *Levels) MaxLevel() int { return len(l.levels) }

// Level0 returns the level-0 files, newest first.
func (l *Levels) Level0() []manifest.DataFileMeta { return l.level0 }

// RunOfLevel returns the sorted run of a level >= 1 (empty when the level has
// no files or does not exist).
func (l *Levels) RunOfLevel(level int) SortedRun {
	if level < 1 || level > len(l.levels) {
		return SortedRun{}
	}
	return l.levels[level-1]
}

// NumberOfSortedRuns counts the level-0 files plus the non-empty higher
// levels (Levels.numberOfSortedRuns), the quantity
// num-sorted-run.compaction-trigger and num-sorted-run.stop-trigger bound.
func (l *Levels) NumberOfSortedRuns() int {
	n := len(l.level0)
	for _, r := range l.levels {
		if len(r.Files) > 0 {
			n++
		}
	}
	return n
}

// NonEmptyHighestLevel returns the highest level that holds a file, or -1
// when there is none (Levels.nonEmptyHighestLevel).
func (l *Levels) NonEmptyHighestLevel() int {
	for i := len(l.levels) - 1; i >= 0; i-- {
		if len(l.levels[i].Files) > 0 {
			return i + 1
		}
	}
	if len(l.level0) > 0 {
		return 0
	}
	return -1
}

// Runs returns the sorted runs, newest data first: each level-0 file, then
// the non-empty levels 1, 2, ... (Levels.levelSortedRuns). This is the input
// of Strategy.Pick.
func (l *Levels) Runs() []LevelSortedRun {
	out := make([]LevelSortedRun, 0, l.NumberOfSortedRuns())
	for _, f := range l.level0 {
		out = append(out, LevelSortedRun{Level: 0, Run: SortedRun{Files: []manifest.DataFileMeta{f}}})
	}
	for i, r := range l.levels {
		if len(r.Files) > 0 {
			out = append(out, LevelSortedRun{Level: i + 1, Run: r})
		}
	}
	return out
}

// TotalFileSize returns the size in bytes of all files.
func (l *Levels) TotalFileSize() int64 {
	var n int64
	for _, f := range l.level0 {
		n += f.FileSize
	}
	for _, r := range l.levels {
		n += r.TotalSize()
	}
	return n
}

// DropDeletes reports whether a compaction of unit may drop retractions (-U,
// -D records): only when its output level is above 0 and no level above the
// output level holds older data (MergeTreeCompactManager.triggerCompaction:
// outputLevel != 0 && outputLevel >= nonEmptyHighestLevel).
func (l *Levels) DropDeletes(u Unit) bool {
	return u.OutputLevel != 0 && u.OutputLevel >= l.NonEmptyHighestLevel()
}
