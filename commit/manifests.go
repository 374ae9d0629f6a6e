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
	indexes   atomic.Int64
}

func (p *pathFactory) indexManifestName() string {
	return "index-manifest-" + p.uuid + "-" + strconv.FormatInt(p.indexes.Add(1)-1, 10)
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
	cache      *entryCache
	offer      *manifest.Cache // WithManifestCache: offered every file written; nil: none
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

// pendingFile is an encoded file of the manifest directory that is not
// written yet. Encoding first lets a commit know every name, size and
// manifest-list row before it writes anything, so that all its manifest
// files and lists go out in one round of concurrent PUTs.
type pendingFile struct {
	name    string
	data    []byte
	entries []manifest.Entry // a manifest's entries (for the entry cache); nil for a list
	list    bool             // a manifest list (for PhaseManifestLists)
}

// encodeManifests encodes entries into manifest files rolling at
// manifest.target-file-size (Java ManifestFile.write with a
// RollingFileWriter) and returns them with their manifest-list rows. No
// entries give no files.
func (mw *manifestWriter) encodeManifests(entries []manifest.Entry) ([]pendingFile, []manifest.FileMeta, error) {
	if len(entries) == 0 {
		return nil, nil, nil
	}
	data, err := manifest.EncodeManifest(entries, mw.opts)
	if err != nil {
		return nil, nil, fmt.Errorf("commit: encode manifest: %w", err)
	}
	chunks := [][]manifest.Entry{entries}
	encoded := [][]byte{data}
	if n := int64(len(data)); n > mw.targetSize && mw.targetSize > 0 && len(entries) > 1 {
		// Split evenly so that each file stays near the target size.
		k := min(int((n+mw.targetSize-1)/mw.targetSize), len(entries))
		per := (len(entries) + k - 1) / k
		chunks, encoded = chunks[:0], encoded[:0]
		for i := 0; i < len(entries); i += per {
			c := entries[i:min(i+per, len(entries))]
			d, err := manifest.EncodeManifest(c, mw.opts)
			if err != nil {
				return nil, nil, fmt.Errorf("commit: encode manifest: %w", err)
			}
			chunks, encoded = append(chunks, c), append(encoded, d)
		}
	}
	files := make([]pendingFile, len(chunks))
	metas := make([]manifest.FileMeta, len(chunks))
	for i, c := range chunks {
		m, err := manifest.SummarizeManifest(c, mw.opts)
		if err != nil {
			return nil, nil, fmt.Errorf("commit: manifest of %d entries: %w", len(c), err)
		}
		name := mw.names.manifestName()
		m.FileName, m.FileSize = name, int64(len(encoded[i]))
		files[i] = pendingFile{name: name, data: encoded[i], entries: c}
		metas[i] = m
	}
	return files, metas, nil
}

// encodeList encodes a manifest list.
func (mw *manifestWriter) encodeList(metas []manifest.FileMeta) (pendingFile, error) {
	data, err := manifest.EncodeManifestList(metas, mw.opts)
	if err != nil {
		return pendingFile{}, fmt.Errorf("commit: encode manifest list: %w", err)
	}
	return pendingFile{name: mw.names.listName(), data: data, list: true}, nil
}

// putAll writes files concurrently (at most maxPuts at a time) and caches
// the entries of the manifests among them; ps (nil: none) records when the
// PUTs ran. On error it deletes every one of them (best effort) and returns
// the first error.
func (mw *manifestWriter) putAll(ctx context.Context, ps *putSpans, files ...pendingFile) error {
	errs := make([]error, len(files))
	sem := make(chan struct{}, maxPuts)
	var wg sync.WaitGroup
	for i := range files {
		f := &files[i]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			start := ps.clock()
			if err := mw.fio.WriteFile(ctx, manifest.Path(f.name), f.data); err != nil {
				errs[i] = fmt.Errorf("commit: write %s: %w", manifest.Path(f.name), err)
				return
			}
			if mw.offer != nil {
				mw.offer.Offer(mw.fio, f.name, f.data)
			}
			ps.note(f, start)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		mw.deleteFiles(ctx, names(files)...)
		return err
	}
	for _, f := range files {
		if f.entries != nil {
			mw.cache.put(f.name, f.entries)
		}
	}
	return nil
}

// maxPuts bounds the concurrent requests of putAll, deleteFiles and
// readManifests.
const maxPuts = 8

func names(files []pendingFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.name
	}
	return out
}

// deleteFiles deletes manifest-directory files written by this Committer,
// concurrently and best effort (Java CommitCleaner): a leftover is an
// orphan file, never a correctness problem.
func (mw *manifestWriter) deleteFiles(ctx context.Context, names ...string) {
	ctx = context.WithoutCancel(ctx)
	sem := make(chan struct{}, maxPuts)
	var wg sync.WaitGroup
	for _, n := range names {
		if n == "" {
			continue
		}
		mw.cache.drop(n)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// An error leaves an orphan, removed by orphan-file cleanup.
			_ = mw.fio.Delete(ctx, manifest.Path(n))
		}()
	}
	wg.Wait()
}

// readManifests reads the entries of several manifests in parallel, in list
// order, from the entry cache where possible. The returned slices are
// shared with the cache: callers must not modify them.
func (mw *manifestWriter) readManifests(ctx context.Context, metas []manifest.FileMeta) ([][]manifest.Entry, error) {
	out := make([][]manifest.Entry, len(metas))
	errs := make([]error, len(metas))
	sem := make(chan struct{}, maxPuts)
	var wg sync.WaitGroup
	for i, m := range metas {
		if es, ok := mw.cache.get(m.FileName); ok {
			out[i] = es
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = manifest.ReadManifest(ctx, mw.fio, m.FileName)
			if errs[i] == nil {
				mw.cache.put(m.FileName, out[i])
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// entryCache keeps the entries of recently written or read manifests by
// file name, up to a budget of entries, evicting the oldest first. Manifest
// files are immutable and their names unique, so a cached value never goes
// stale; it saves the reads of manifest merging, conflict detection and
// overwrites, which mostly touch manifests this Committer wrote itself.
type entryCache struct {
	mu      sync.Mutex
	budget  int
	size    int
	byName  map[string][]manifest.Entry
	order   []string // insertion order, oldest first
	evicted int      // order[:evicted] are gone
}

// cacheBudget is the entry budget of a Committer's entry cache (about
// 16 MiB of entries with typical statistics).
const cacheBudget = 1 << 15

func newEntryCache(budget int) *entryCache {
	return &entryCache{budget: budget, byName: map[string][]manifest.Entry{}}
}

func (c *entryCache) get(name string) ([]manifest.Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	es, ok := c.byName[name]
	return es, ok
}

func (c *entryCache) put(name string, es []manifest.Entry) {
	if len(es) > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byName[name]; ok {
		return
	}
	c.byName[name] = es
	c.order = append(c.order, name)
	c.size += len(es)
	for c.size > c.budget && c.evicted < len(c.order) {
		old := c.order[c.evicted]
		c.evicted++
		c.size -= len(c.byName[old])
		delete(c.byName, old)
	}
	if c.evicted > len(c.order)/2 {
		c.order = append([]string(nil), c.order[c.evicted:]...)
		c.evicted = 0
	}
}

func (c *entryCache) drop(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.size -= len(c.byName[name])
	delete(c.byName, name) // its name stays in order; evicting it again is a no-op
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
// merged manifests it names, encoded but not written yet.
func (mw *manifestWriter) merge(ctx context.Context, input []manifest.FileMeta, cfg mergeConfig, partFields []types.DataField) (result []manifest.FileMeta, pending []pendingFile, err error) {
	result, pending, ok, err := mw.fullCompaction(ctx, input, cfg, partFields)
	if err != nil || ok {
		return result, pending, err
	}
	return mw.minorCompaction(ctx, input, cfg)
}

func (mw *manifestWriter) minorCompaction(ctx context.Context, input []manifest.FileMeta, cfg mergeConfig) (result []manifest.FileMeta, pending []pendingFile, err error) {
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
		files, metas, err := mw.encodeManifests(merged)
		if err != nil {
			return err
		}
		pending = append(pending, files...)
		result = append(result, metas...)
		return nil
	}
	for _, m := range input {
		total += m.FileSize
		candidates = append(candidates, m)
		if total >= cfg.targetSize {
			if err := flush(); err != nil {
				return nil, nil, err
			}
			candidates, total = nil, 0
		}
	}
	if len(candidates) >= cfg.minCount {
		if err := flush(); err != nil {
			return nil, nil, err
		}
	} else {
		result = append(result, candidates...)
	}
	return result, pending, nil
}

// fullCompaction is ManifestFileLegacyMerger.tryFullCompaction. ok is false
// when it does not apply.
func (mw *manifestWriter) fullCompaction(ctx context.Context, input []manifest.FileMeta, cfg mergeConfig, partFields []types.DataField) (result []manifest.FileMeta, pending []pendingFile, ok bool, err error) {
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
	pending, metas, err := mw.encodeManifests(keep)
	if err != nil {
		return nil, nil, false, err
	}
	return append(result, metas...), pending, true, nil
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
