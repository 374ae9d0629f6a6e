package commit

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// appendIndex appends the index changes of message m to out: a DELETE entry
// for every file of deleted, then an ADD entry for every file of added (Java
// ManifestEntryChanges.collect).
func appendIndex(out []manifest.IndexManifestEntry, m *Message, deleted, added []manifest.IndexFileMeta) []manifest.IndexManifestEntry {
	for _, f := range deleted {
		out = append(out, manifest.IndexManifestEntry{Kind: manifest.Delete, Partition: m.Partition, Bucket: m.Bucket, IndexFile: f})
	}
	for _, f := range added {
		out = append(out, manifest.IndexManifestEntry{Kind: manifest.Add, Partition: m.Partition, Bucket: m.Bucket, IndexFile: f})
	}
	return out
}

// hasDeletionVectors reports whether es holds a deletion-vector index file.
func hasDeletionVectors(es []manifest.IndexManifestEntry) bool {
	return slices.ContainsFunc(es, func(e manifest.IndexManifestEntry) bool {
		return e.IndexFile.IndexType == manifest.IndexTypeDeletionVectors
	})
}

// empty reports whether the part changes neither data nor index files.
func (p *part) empty() bool {
	return len(p.entries) == 0 && len(p.index) == 0 && len(p.changelog.entries) == 0
}

// indexCombine is how one index type's files are combined
// (IndexManifestFileHandler.getIndexManifestFileCombine).
type indexCombine int

const (
	combineBucketed indexCombine = iota // BucketedCombiner: one file per (partition, bucket, type)
	combineDVByName                     // GlobalCombiner: DVs of bucket-unaware tables, by file name
	combineByName                       // GlobalIndexCombiner: global indexes, by file name
)

func combineOf(indexType string, unaware bool) indexCombine {
	switch {
	case indexType != manifest.IndexTypeDeletionVectors && indexType != manifest.IndexTypeHash:
		return combineByName
	case indexType == manifest.IndexTypeDeletionVectors && unaware:
		return combineDVByName
	}
	return combineBucketed
}

// indexKey is the identity under which combining replaces an entry.
func indexKey(e *manifest.IndexManifestEntry, how indexCombine) string {
	if how == combineBucketed {
		return "b\x00" + e.IndexFile.IndexType + "\x00" + strconv.Itoa(int(e.Bucket)) + "\x00" + string(e.Partition)
	}
	return "f\x00" + e.IndexFile.IndexType + "\x00" + e.IndexFile.FileName
}

// indexSet is an ordered set of live index entries under their keys.
type indexSet struct {
	list []*manifest.IndexManifestEntry // nil: removed
	pos  map[string]int
}

func (s *indexSet) get(key string) *manifest.IndexManifestEntry {
	if i, ok := s.pos[key]; ok {
		return s.list[i]
	}
	return nil
}

func (s *indexSet) remove(key string) {
	if i, ok := s.pos[key]; ok {
		s.list[i] = nil
		delete(s.pos, key)
	}
}

func (s *indexSet) put(key string, e *manifest.IndexManifestEntry) {
	s.remove(key)
	s.pos[key] = len(s.list)
	s.list = append(s.list, e)
}

// combineIndex is IndexManifestFileHandler.write without the file: the live
// index files prev of the base snapshot (all ADD) with the changes delta
// applied, per index type:
//
//   - bucketed deletion vectors and hash indexes (BucketedCombiner): the
//     DELETE entries remove their partition-bucket's file, then each ADD
//     entry replaces it; a DELETE must name the file that is live there;
//   - deletion vectors of bucket-unaware tables (GlobalCombiner): entries in
//     order, by file name; an ADD must not repeat a live file nor give a data
//     file a second vector, a DELETE must name a live file;
//   - other (global) indexes (GlobalIndexCombiner): DELETE entries first,
//     each naming a live file, then the ADD entries by file name.
//
// Retained entries keep their order, added ones follow in delta order.
// unaware marks a bucket-unaware table. Errors wrap ErrConflict: the base
// no longer holds what delta expects.
func combineIndex(prev, delta []manifest.IndexManifestEntry, unaware bool) ([]manifest.IndexManifestEntry, error) {
	s := &indexSet{pos: make(map[string]int, len(prev))}
	dvFiles := map[string]bool{} // data files with a vector (GlobalCombiner)
	for i := range prev {
		e := &prev[i]
		if e.Kind != manifest.Add {
			return nil, fmt.Errorf("commit: index manifest of the base snapshot holds a DELETE entry for %s", e.IndexFile.FileName)
		}
		how := combineOf(e.IndexFile.IndexType, unaware)
		s.put(indexKey(e, how), e)
		if how == combineDVByName {
			for _, r := range e.IndexFile.DVRanges {
				dvFiles[r.DataFileName] = true
			}
		}
	}
	gone := func(e *manifest.IndexManifestEntry) error {
		return fmt.Errorf("%w: index file %s (bucket %d) to delete is not live: a concurrent commit replaced or removed it",
			ErrConflict, e.IndexFile.FileName, e.Bucket)
	}
	// GlobalCombiner: in order.
	for i := range delta {
		e := &delta[i]
		if combineOf(e.IndexFile.IndexType, unaware) != combineDVByName {
			continue
		}
		key := indexKey(e, combineDVByName)
		if e.Kind == manifest.Add {
			if s.get(key) != nil {
				return nil, fmt.Errorf("%w: index file %s is already added", ErrConflict, e.IndexFile.FileName)
			}
			for _, r := range e.IndexFile.DVRanges {
				if dvFiles[r.DataFileName] {
					return nil, fmt.Errorf("%w: deletion vector of data file %s is already added", ErrConflict, r.DataFileName)
				}
				dvFiles[r.DataFileName] = true
			}
			s.put(key, e)
			continue
		}
		if s.get(key) == nil {
			return nil, gone(e)
		}
		for _, r := range e.IndexFile.DVRanges {
			if !dvFiles[r.DataFileName] {
				return nil, fmt.Errorf("%w: deletion vector of data file %s to delete does not exist", ErrConflict, r.DataFileName)
			}
			delete(dvFiles, r.DataFileName)
		}
		s.remove(key)
	}
	// BucketedCombiner and GlobalIndexCombiner: deletions first.
	for i := range delta {
		e := &delta[i]
		how := combineOf(e.IndexFile.IndexType, unaware)
		if how == combineDVByName || e.Kind != manifest.Delete {
			continue
		}
		key := indexKey(e, how)
		if live := s.get(key); live == nil || live.IndexFile.FileName != e.IndexFile.FileName {
			return nil, gone(e)
		}
		s.remove(key)
	}
	for i := range delta {
		e := &delta[i]
		how := combineOf(e.IndexFile.IndexType, unaware)
		if how == combineDVByName || e.Kind != manifest.Add {
			continue
		}
		key := indexKey(e, how)
		if live := s.get(key); live != nil && e.IndexFile.IndexType == manifest.IndexTypeDeletionVectors {
			// Our writers list the bucket's previous vector file among the
			// deletions; a live file left here was added by a concurrent
			// commit, and replacing it would drop its vectors (Java's
			// BucketedCombiner replaces it silently).
			return nil, fmt.Errorf("%w: deletion-vector index file %s of bucket %d was added concurrently; %s would replace it",
				ErrConflict, live.IndexFile.FileName, e.Bucket, e.IndexFile.FileName)
		}
		s.put(key, e)
	}
	out := make([]manifest.IndexManifestEntry, 0, len(s.pos))
	for _, e := range s.list {
		if e != nil {
			out = append(out, *e)
		}
	}
	return out, nil
}

// overwriteIndexDeletes returns a DELETE entry for every live index file of
// the partitions sel selects (OverwriteChangesProvider: index files are
// selected by partition only), except those own, the part's own index
// changes, already deletes.
func overwriteIndexDeletes(live []manifest.IndexManifestEntry, sel *selector, own []manifest.IndexManifestEntry) ([]manifest.IndexManifestEntry, error) {
	var out []manifest.IndexManifestEntry
	for _, e := range live {
		ok, err := sel.match(e.Partition)
		if err != nil {
			return nil, err
		}
		if ok && !slices.ContainsFunc(own, func(o manifest.IndexManifestEntry) bool {
			return o.Kind == manifest.Delete && o.IndexFile.FileName == e.IndexFile.FileName
		}) {
			e.Kind = manifest.Delete
			out = append(out, e)
		}
	}
	return out, nil
}

// checkIndexConflicts checks that every deletion vector the index changes
// add belongs to a data file that is live after the commit: files are the
// live files of the delta's partitions with the delta applied, keyed by
// manifest.Entry.Identifier. (Java ConflictDetection.buildDeltaEntriesWithDV:
// "Trying to create deletion vector on file ... which is not previously
// added".) Errors wrap ErrConflict.
func checkIndexConflicts(files map[string]manifest.Entry, index []manifest.IndexManifestEntry) error {
	if !slices.ContainsFunc(index, func(e manifest.IndexManifestEntry) bool {
		return e.Kind == manifest.Add && len(e.IndexFile.DVRanges) > 0
	}) {
		return nil
	}
	type dataFile struct {
		part   string
		bucket int32
		name   string
	}
	live := make(map[dataFile]bool, len(files))
	for _, e := range files {
		live[dataFile{string(e.Partition), e.Bucket, e.File.FileName}] = true
	}
	for _, e := range index {
		if e.Kind != manifest.Add || e.IndexFile.IndexType != manifest.IndexTypeDeletionVectors {
			continue
		}
		for _, r := range e.IndexFile.DVRanges {
			if !live[dataFile{string(e.Partition), e.Bucket, r.DataFileName}] {
				return fmt.Errorf("%w: deletion vector in %s for data file %s (bucket %d), which is not live: a concurrent commit deleted it",
					ErrConflict, e.IndexFile.FileName, r.DataFileName, e.Bucket)
			}
		}
	}
	return nil
}

// indexCache is the last index manifest this Committer read or wrote.
type indexCache struct {
	name    string
	entries []manifest.IndexManifestEntry
}

// baseIndex returns the live index files of snapshot s: the entries of its
// index manifest (none when it has none or s is nil).
func (c *Committer) baseIndex(ctx context.Context, s *snapshot.Snapshot) ([]manifest.IndexManifestEntry, error) {
	if s == nil || s.IndexManifest == nil || *s.IndexManifest == "" {
		return nil, nil
	}
	name := *s.IndexManifest
	c.mu.Lock()
	ic := c.index
	c.mu.Unlock()
	if ic.name == name {
		return ic.entries, nil
	}
	es, err := manifest.ReadIndexManifest(ctx, c.fio, name)
	if err != nil {
		return nil, fmt.Errorf("commit: index manifest of snapshot %d: %w", s.ID, err)
	}
	c.rememberIndex(name, es)
	return es, nil
}

func (c *Committer) rememberIndex(name string, es []manifest.IndexManifestEntry) {
	c.mu.Lock()
	c.index = indexCache{name: name, entries: es}
	c.mu.Unlock()
}

// encodeIndexManifest encodes the complete list of live index files into a
// new index manifest "index-manifest-<uuid>-<n>" (Java
// IndexManifestFile.writeWithoutRolling).
func (mw *manifestWriter) encodeIndexManifest(entries []manifest.IndexManifestEntry) (pendingFile, error) {
	data, err := manifest.EncodeIndexManifest(entries, mw.opts)
	if err != nil {
		return pendingFile{}, fmt.Errorf("commit: encode index manifest: %w", err)
	}
	return pendingFile{name: mw.names.indexManifestName(), data: data}, nil
}
