package commit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/types"
)

// pathFactory names the files of the manifest directory as Java's
// FileStorePathFactory does: "<prefix>-<uuid>-<n>" with one random uuid per
// Committer and one counter per file kind (manifest-list, manifest,
// index-manifest), starting at 0.
type pathFactory struct {
	uuid      string
	manifests atomic.Int64
	lists     atomic.Int64
}

func (p *pathFactory) manifestName() string {
	return "manifest-" + p.uuid + "-" + strconv.FormatInt(p.manifests.Add(1)-1, 10)
}

func (p *pathFactory) listName() string {
	return "manifest-list-" + p.uuid + "-" + strconv.FormatInt(p.lists.Add(1)-1, 10)
}

// manifestWriter writes manifest files and lists for one Committer and
// remembers what it wrote so that a failed attempt can delete it.
type manifestWriter struct {
	fio        *fileio.FileIO
	names      *pathFactory
	opts       manifest.WriteOptions
	targetSize int64 // manifest.target-file-size
}

// newPartitionStats returns the WriteOptions.PartitionStats function of a
// table with the given partition fields: min, max and null count of every
// partition field over the entries' partition rows (Java's
// SimpleStatsCollector in full mode, stored in all mode).
func newPartitionStats(fields []types.DataField) func([][]byte) (manifest.SimpleStats, error) {
	if len(fields) == 0 {
		return nil
	}
	ts := row.FieldTypes(fields)
	return func(parts [][]byte) (manifest.SimpleStats, error) {
		cols := make([]row.ColStats, len(fields))
		seen := map[string]bool{}
		for _, p := range parts {
			if seen[string(p)] {
				continue
			}
			seen[string(p)] = true
			br, err := row.Deserialize(p)
			if err != nil {
				return manifest.SimpleStats{}, err
			}
			vals, err := row.Decode(ts, br)
			if err != nil {
				return manifest.SimpleStats{}, err
			}
			for i, v := range vals {
				c := &cols[i]
				if v == nil {
					c.NullCount++
					continue
				}
				if c.Min == nil || types.Compare(ts[i], v, c.Min) < 0 {
					c.Min = v
				}
				if c.Max == nil || types.Compare(ts[i], v, c.Max) > 0 {
					c.Max = v
				}
			}
		}
		// Null counts count entries, not distinct partitions.
		for i := range cols {
			cols[i].NullCount = 0
		}
		for _, p := range parts {
			br, err := row.Deserialize(p)
			if err != nil {
				return manifest.SimpleStats{}, err
			}
			for i := range cols {
				if br.IsNullAt(i) {
					cols[i].NullCount++
				}
			}
		}
		enc, err := row.EncodeStats(fields, cols, false)
		if err != nil {
			return manifest.SimpleStats{}, err
		}
		return manifest.SimpleStats{MinValues: row.Serialize(enc.Min), MaxValues: row.Serialize(enc.Max), NullCounts: enc.NullCounts}, nil
	}
}

// writeManifests writes entries into manifest files rolling at
// manifest.target-file-size (Java ManifestFile.write with a
// RollingFileWriter) and returns their manifest-list rows. No entries give
// no files.
func (mw *manifestWriter) writeManifests(ctx context.Context, entries []manifest.Entry) ([]manifest.FileMeta, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	chunks := [][]manifest.Entry{entries}
	if len(entries) > 1 {
		// Measure once, then split evenly so that each file stays near the
		// target size.
		data, err := manifest.EncodeManifest(entries, mw.opts)
		if err != nil {
			return nil, err
		}
		if n := int64(len(data)); n > mw.targetSize && mw.targetSize > 0 {
			k := int((n + mw.targetSize - 1) / mw.targetSize)
			k = min(k, len(entries))
			chunks = chunks[:0]
			per := (len(entries) + k - 1) / k
			for i := 0; i < len(entries); i += per {
				chunks = append(chunks, entries[i:min(i+per, len(entries))])
			}
		}
	}
	out := make([]manifest.FileMeta, 0, len(chunks))
	for _, c := range chunks {
		name := mw.names.manifestName()
		m, err := manifest.WriteManifest(ctx, mw.fio, name, c, mw.opts)
		if err != nil {
			mw.deleteManifests(ctx, out)
			return nil, fmt.Errorf("commit: write %s: %w", manifest.Path(name), err)
		}
		m.FileName = name
		out = append(out, m)
	}
	return out, nil
}

// writeList writes a manifest list and returns its name and size.
func (mw *manifestWriter) writeList(ctx context.Context, metas []manifest.FileMeta) (string, int64, error) {
	name := mw.names.listName()
	size, err := manifest.WriteManifestList(ctx, mw.fio, name, metas, mw.opts)
	if err != nil {
		mw.deleteFiles(ctx, name)
		return "", 0, fmt.Errorf("commit: write %s: %w", manifest.Path(name), err)
	}
	return name, size, nil
}

func (mw *manifestWriter) deleteManifests(ctx context.Context, metas []manifest.FileMeta) {
	names := make([]string, len(metas))
	for i, m := range metas {
		names[i] = m.FileName
	}
	mw.deleteFiles(ctx, names...)
}

// deleteFiles deletes manifest-directory files written by this Committer,
// best effort (Java CommitCleaner): a leftover is an orphan file, never a
// correctness problem.
func (mw *manifestWriter) deleteFiles(ctx context.Context, names ...string) {
	ctx = context.WithoutCancel(ctx)
	for _, n := range names {
		if n == "" {
			continue
		}
		if err := mw.fio.Delete(ctx, manifest.Path(n)); err != nil && !errors.Is(err, fileio.ErrNotExist) {
			_ = err // orphan; removed by orphan-file cleanup
		}
	}
}

// readManifests reads the entries of several manifests in parallel, in list
// order.
func (mw *manifestWriter) readManifests(ctx context.Context, metas []manifest.FileMeta) ([][]manifest.Entry, error) {
	out := make([][]manifest.Entry, len(metas))
	errs := make([]error, len(metas))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, m := range metas {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = manifest.ReadManifest(ctx, mw.fio, m.FileName)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeConfig holds the thresholds of Java's ManifestFileMerger.
type mergeConfig struct {
	targetSize    int64 // manifest.target-file-size
	minCount      int   // manifest.merge-min-count
	fullThreshold int64 // manifest.full-compaction-threshold-size
}

// merge is Java's ManifestFileLegacyMerger.merge: a full compaction when the
// manifests that must change (with deletions, or smaller than the target
// size) reach the full-compaction threshold, otherwise a minor compaction
// that merges runs of small manifests. It returns the new base list and the
// manifests it wrote (to delete if the commit attempt fails).
func (mw *manifestWriter) merge(ctx context.Context, input []manifest.FileMeta, cfg mergeConfig, partFields []types.DataField) (result, written []manifest.FileMeta, err error) {
	defer func() {
		if err != nil {
			mw.deleteManifests(ctx, written)
			written = nil
		}
	}()
	result, written, ok, err := mw.fullCompaction(ctx, input, cfg, partFields)
	if err != nil || ok {
		return result, written, err
	}
	return mw.minorCompaction(ctx, input, cfg)
}

func (mw *manifestWriter) minorCompaction(ctx context.Context, input []manifest.FileMeta, cfg mergeConfig) (result, written []manifest.FileMeta, err error) {
	var candidates []manifest.FileMeta
	var total int64
	flush := func() error {
		if len(candidates) == 1 {
			result = append(result, candidates[0])
			return nil
		}
		entries, err := mw.readManifests(ctx, candidates)
		if err != nil {
			return err
		}
		var all []manifest.Entry
		for _, e := range entries {
			all = append(all, e...)
		}
		merged, err := manifest.Merge(all)
		if err != nil {
			return err
		}
		metas, err := mw.writeManifests(ctx, merged)
		if err != nil {
			return err
		}
		written = append(written, metas...)
		result = append(result, metas...)
		return nil
	}
	for _, m := range input {
		total += m.FileSize
		candidates = append(candidates, m)
		if total >= cfg.targetSize {
			if err := flush(); err != nil {
				return nil, written, err
			}
			candidates, total = nil, 0
		}
	}
	if len(candidates) >= cfg.minCount {
		if err := flush(); err != nil {
			return nil, written, err
		}
	} else {
		result = append(result, candidates...)
	}
	return result, written, nil
}

// fullCompaction is ManifestFileLegacyMerger.tryFullCompaction. ok is false
// when it does not apply.
func (mw *manifestWriter) fullCompaction(ctx context.Context, input []manifest.FileMeta, cfg mergeConfig, partFields []types.DataField) (result, written []manifest.FileMeta, ok bool, err error) {
	mustChange := func(m manifest.FileMeta) bool { return m.NumDeletedFiles > 0 || m.FileSize < cfg.targetSize }
	var deltaSize int64
	for _, m := range input {
		if mustChange(m) {
			deltaSize += m.FileSize
		}
	}
	if deltaSize < cfg.fullThreshold {
		return nil, nil, false, nil
	}
	// Identifiers deleted anywhere, and their partitions.
	var withDeletes []manifest.FileMeta
	for _, m := range input {
		if m.NumDeletedFiles > 0 {
			withDeletes = append(withDeletes, m)
		}
	}
	delEntries, err := mw.readManifests(ctx, withDeletes)
	if err != nil {
		return nil, nil, false, err
	}
	deleted := map[string]bool{}
	delParts := map[string][]byte{}
	for _, es := range delEntries {
		for _, e := range es {
			if e.Kind == manifest.Delete {
				deleted[e.Identifier()] = true
				delParts[string(e.Partition)] = e.Partition
			}
		}
	}
	var toMerge []manifest.FileMeta
	for _, m := range input {
		if !mustChange(m) && (len(deleted) == 0 || !mayContainPartitions(m, partFields, delParts)) {
			result = append(result, m)
			continue
		}
		toMerge = append(toMerge, m)
	}
	if len(toMerge) <= 1 {
		return nil, nil, false, nil
	}
	entries, err := mw.readManifests(ctx, toMerge)
	if err != nil {
		return nil, nil, false, err
	}
	var keep []manifest.Entry
	for i, es := range entries {
		change := mustChange(toMerge[i])
		var adds []manifest.Entry
		for _, e := range es {
			if e.Kind != manifest.Add {
				continue
			}
			if deleted[e.Identifier()] {
				change = true
				continue
			}
			adds = append(adds, e)
		}
		if change {
			keep = append(keep, adds...)
		} else {
			result = append(result, toMerge[i])
		}
	}
	written, err = mw.writeManifests(ctx, keep)
	if err != nil {
		return nil, nil, false, err
	}
	return append(result, written...), written, true, nil
}

// mayContainPartitions reports whether manifest m's partition statistics
// admit one of parts (conservatively true when they cannot be decoded).
func mayContainPartitions(m manifest.FileMeta, fields []types.DataField, parts map[string][]byte) bool {
	if len(fields) == 0 {
		return true
	}
	minRow, err1 := row.Deserialize(m.PartitionStats.MinValues)
	maxRow, err2 := row.Deserialize(m.PartitionStats.MaxValues)
	if err1 != nil || err2 != nil || minRow.Arity() != len(fields) || maxRow.Arity() != len(fields) {
		return true
	}
	st, err := row.DecodeStats(fields, nil, minRow, maxRow, m.PartitionStats.NullCounts)
	if err != nil {
		return true
	}
	ts := row.FieldTypes(fields)
	for _, p := range parts {
		br, err := row.Deserialize(p)
		if err != nil {
			return true
		}
		vals, err := row.Decode(ts, br)
		if err != nil {
			return true
		}
		match := true
		for i, v := range vals {
			if v == nil {
				if st.NullCounts[i] == 0 {
					match = false
				}
				continue
			}
			if st.Min[i] == nil && st.Max[i] == nil {
				if st.NullCounts[i] >= 0 && st.NullCounts[i] == m.NumAddedFiles+m.NumDeletedFiles {
					match = false // only nulls in this field
				}
				continue
			}
			if (st.Min[i] != nil && types.Compare(ts[i], v, st.Min[i]) < 0) || (st.Max[i] != nil && types.Compare(ts[i], v, st.Max[i]) > 0) {
				match = false
			}
		}
		if match {
			return true
		}
	}
	return false
}
