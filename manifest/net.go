package manifest

import (
	"encoding/binary"
	"fmt"
)

// Identifier returns the identity of the data file an entry refers to (Java
// FileEntry.Identifier): partition bytes, bucket, level, file name, extra files, embedded index
// and external path. Entries with equal identifiers refer to the same file; a DELETE cancels the
// ADD with the same identifier. The result is an opaque, unambiguous byte string usable as a map
// key.
func (e *Entry) Identifier() string {
	f := &e.File
	n := 4*8 + len(e.Partition) + len(f.FileName) + len(f.EmbeddedIndex)
	for _, x := range f.ExtraFiles {
		n += 4 + len(x)
	}
	if f.ExternalPath != nil {
		n += len(*f.ExternalPath)
	}
	b := make([]byte, 0, n)
	bytesField := func(v []byte) {
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	bytesField(e.Partition)
	b = binary.BigEndian.AppendUint32(b, uint32(e.Bucket))
	b = binary.BigEndian.AppendUint32(b, uint32(f.Level))
	bytesField([]byte(f.FileName))
	b = binary.BigEndian.AppendUint32(b, uint32(len(f.ExtraFiles)))
	for _, x := range f.ExtraFiles {
		bytesField([]byte(x))
	}
	if f.EmbeddedIndex == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		bytesField(f.EmbeddedIndex)
	}
	if f.ExternalPath == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		bytesField([]byte(*f.ExternalPath))
	}
	return string(b)
}

// Merge folds a sequence of entries the way Java's FileEntry.mergeEntries does: an ADD is
// recorded (an error wrapping ErrMerge if the same file is already recorded); a DELETE removes
// the recorded ADD of the same file, or is itself recorded as a pending DELETE when the ADD is
// not in the sequence (it must then be in earlier manifests). The result keeps first-insertion
// order. Use Merge for delta entries; use Net for a complete snapshot.
func Merge(entries []Entry) ([]Entry, error) {
	type slot struct {
		entry Entry
		live  bool
	}
	index := make(map[string]int, len(entries))
	slots := make([]slot, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		id := e.Identifier()
		switch e.Kind {
		case Add:
			if j, ok := index[id]; ok {
				return nil, fmt.Errorf("%w: trying to add file %s (partition %x, bucket %d, level %d) which is already added (%s entry %d)",
					ErrMerge, e.File.FileName, e.Partition, e.Bucket, e.File.Level, slots[j].entry.Kind, i)
			}
			index[id] = len(slots)
			slots = append(slots, slot{entry: *e, live: true})
		case Delete:
			if j, ok := index[id]; ok {
				slots[j].live = false
				delete(index, id)
				continue
			}
			index[id] = len(slots)
			slots = append(slots, slot{entry: *e, live: true})
		default:
			return nil, fmt.Errorf("%w: entry %d has unknown kind %d", ErrMerge, i, e.Kind)
		}
	}
	out := make([]Entry, 0, len(index))
	for _, s := range slots {
		if s.live {
			out = append(out, s.entry)
		}
	}
	return out, nil
}

// Net merges the entries of a complete snapshot (base manifests, then delta manifests, in list
// order) and returns the live files: the ADD entries that no DELETE cancelled, in first-insertion
// order. A DELETE without a matching ADD means the entry sequence is inconsistent (Java's commit
// rejects it: "Trying to delete file ... which is not previously added"); Net then returns an
// error wrapping ErrMerge, as it does for a file added twice.
func Net(entries []Entry) ([]Entry, error) {
	merged, err := Merge(entries)
	if err != nil {
		return nil, err
	}
	for i := range merged {
		if merged[i].Kind == Delete {
			e := &merged[i]
			return nil, fmt.Errorf("%w: trying to delete file %s (partition %x, bucket %d, level %d) which is not previously added",
				ErrMerge, e.File.FileName, e.Partition, e.Bucket, e.File.Level)
		}
	}
	return merged, nil
}
