package manifest

import (
	"encoding/binary"
	"fmt"
	"strings"
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
	// One allocation: the builder's buffer becomes the string.
	var b strings.Builder
	b.Grow(n)
	var u [4]byte
	uint32Field := func(v uint32) {
		binary.BigEndian.PutUint32(u[:], v)
		b.Write(u[:])
	}
	bytesField := func(v []byte) {
		uint32Field(uint32(len(v)))
		b.Write(v)
	}
	stringField := func(v string) {
		uint32Field(uint32(len(v)))
		b.WriteString(v)
	}
	bytesField(e.Partition)
	uint32Field(uint32(e.Bucket))
	uint32Field(uint32(f.Level))
	stringField(f.FileName)
	uint32Field(uint32(len(f.ExtraFiles)))
	for _, x := range f.ExtraFiles {
		stringField(x)
	}
	if f.EmbeddedIndex == nil {
		b.WriteByte(0)
	} else {
		b.WriteByte(1)
		bytesField(f.EmbeddedIndex)
	}
	if f.ExternalPath == nil {
		b.WriteByte(0)
	} else {
		b.WriteByte(1)
		stringField(*f.ExternalPath)
	}
	return b.String()
}

// Merge folds a sequence of entries the way Java's FileEntry.mergeEntries does: an ADD is
// recorded (an error wrapping ErrMerge if the same file is already recorded); a DELETE removes
// the recorded ADD of the same file, or is itself recorded as a pending DELETE when the ADD is
// not in the sequence (it must then be in earlier manifests). The result keeps first-insertion
// order. Use Merge for delta entries; use Net for a complete snapshot.
func Merge(entries []Entry) ([]Entry, error) {
	// slots are indexes into entries (copied once, at the end); -1 marks a
	// cancelled ADD.
	index := make(map[string]int, len(entries))
	slots := make([]int, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		id := e.Identifier()
		switch e.Kind {
		case Add:
			if j, ok := index[id]; ok {
				return nil, fmt.Errorf("%w: trying to add file %s (partition %x, bucket %d, level %d) which is already added (%s entry %d)",
					ErrMerge, e.File.FileName, e.Partition, e.Bucket, e.File.Level, entries[slots[j]].Kind, i)
			}
			index[id] = len(slots)
			slots = append(slots, i)
		case Delete:
			if j, ok := index[id]; ok {
				slots[j] = -1
				delete(index, id)
				continue
			}
			index[id] = len(slots)
			slots = append(slots, i)
		default:
			return nil, fmt.Errorf("%w: entry %d has unknown kind %d", ErrMerge, i, e.Kind)
		}
	}
	out := make([]Entry, 0, len(index))
	for _, i := range slots {
		if i >= 0 {
			out = append(out, entries[i])
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
