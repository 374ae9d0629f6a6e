// Package snapshot reads and writes Paimon snapshot files (snapshot/snapshot-<id>), their hint
// files (snapshot/EARLIEST, snapshot/LATEST) and tags (tag/tag-<name>), mirroring Java's
// org.apache.paimon.Snapshot, utils.SnapshotManager, utils.HintFileUtils, tag.Tag and
// utils.TagManager (format doc sections 3, 13.4 and 14).
//
// Snapshot JSON of every version is accepted (1 without "version", 2, 3 with or without the
// fields added up to Paimon HEAD); keys this package does not know are kept verbatim and written
// back after the known ones. Encoding follows Java HEAD: Jackson's pretty printer, Java's key
// order, null-valued optional keys omitted.
//
// # Hints
//
// The LATEST and EARLIEST hints may lag, be missing or lie; they only save listings. The latest
// snapshot is the id h the LATEST hint names when snapshot-h exists and snapshot-(h+1) does not,
// otherwise the largest listed id (Manager.LatestID, Manager.Latest). The earliest is the
// EARLIEST id when that snapshot exists, otherwise the smallest listed id (Manager.EarliestID).
// A hint naming a missing snapshot (an interrupted rollback, a hand-deleted file) is therefore
// never returned; Manager.ConfirmEarliestHint tells such a lie from a hint that moved. Snapshot
// ids end at math.MaxInt64: NextID refuses to go past it.
//
// # Errors
//
// [ErrNotFound] when a snapshot or tag does not exist (it also matches fileio.ErrNotExist when
// the file system reported the absence), [ErrCorrupt] when a file is not valid snapshot JSON (the
// error names the file), [ErrExist] when Commit finds the snapshot id taken, [ErrIDOverflow]
// when no snapshot id follows the latest (NextID). Other file-system errors are wrapped
// unchanged.
package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNotFound reports a missing snapshot, tag or hint-resolved id (no snapshot at all).
	ErrNotFound = errors.New("snapshot: not found")
	// ErrCorrupt reports a file that is not valid snapshot or tag JSON.
	ErrCorrupt = errors.New("snapshot: corrupt file")
	// ErrExist reports that Commit lost the race for a snapshot id: the file already exists.
	ErrExist = errors.New("snapshot: already exists")
	// ErrIDOverflow reports that the next snapshot id does not fit an int64: the latest id is
	// math.MaxInt64 (a crafted or damaged table). Java's long would wrap around to a negative id.
	ErrIDOverflow = errors.New("snapshot: snapshot id overflow")
)

// NextID returns the id of the snapshot that follows snapshot id: id + 1. Errors wrap
// ErrIDOverflow when id is math.MaxInt64 (the next id would wrap to math.MinInt64, which
// names the file snapshot--9223372036854775808) or below 0.
func NextID(id int64) (int64, error) {
	if id < 0 || id == math.MaxInt64 {
		return 0, fmt.Errorf("%w: no snapshot id follows %d", ErrIDOverflow, id)
	}
	return id + 1, nil
}

// CommitKind is the kind of change a snapshot records (Java Snapshot.CommitKind).
type CommitKind string

// Commit kinds.
const (
	KindAppend    CommitKind = "APPEND"
	KindCompact   CommitKind = "COMPACT"
	KindOverwrite CommitKind = "OVERWRITE"
	KindAnalyze   CommitKind = "ANALYZE"
)

// CurrentVersion is the snapshot format version written by Java since 0.4.
const CurrentVersion = 3

// Snapshot is the content of one snapshot file (Java org.apache.paimon.Snapshot). Optional
// fields are pointers or nil maps and are omitted from the JSON when nil, as Java HEAD does.
type Snapshot struct {
	// Version is the format version: 3 since Paimon 0.4, 2 in 0.3; 0 when the key is absent
	// (version 1, Paimon ≤ 0.2).
	Version int32
	// UUID is a random id per snapshot (2.0+), used by catalog commits.
	UUID *string
	// ID is the snapshot id (1, 2, ...).
	ID int64
	// SchemaID is the latest schema id at commit time.
	SchemaID int64
	// BaseManifestList names the manifest list (in manifest/) of all files before this commit.
	BaseManifestList string
	// BaseManifestListSize is its size in bytes (1.1+).
	BaseManifestListSize *int64
	// DeltaManifestList names the manifest list of the changes of this commit.
	DeltaManifestList string
	// DeltaManifestListSize is its size in bytes (1.1+).
	DeltaManifestListSize *int64
	// ChangelogManifestList names the changelog manifest list; nil when there is no changelog.
	ChangelogManifestList *string
	// ChangelogManifestListSize is its size in bytes (1.1+).
	ChangelogManifestListSize *int64
	// IndexManifest names the index manifest listing all index files; nil when there are none.
	IndexManifest *string
	// CommitUser identifies the writing job.
	CommitUser string
	// WriterVersion is the build version of the writer (HEAD only).
	WriterVersion *string
	// CommitIdentifier is the checkpoint id (streaming) or math.MaxInt64 (batch commits).
	CommitIdentifier int64
	// CommitKind is APPEND, COMPACT, OVERWRITE or ANALYZE.
	CommitKind CommitKind
	// TimeMillis is the commit time, epoch milliseconds (UTC).
	TimeMillis int64
	// LogOffsets maps bucket to log-system offset (≤ 1.3; removed in 1.4). Non-nil maps are
	// written, so a decoded `{ }` round-trips.
	LogOffsets map[int32]int64
	// TotalRecordCount is Σ row count of all live data files.
	TotalRecordCount int64
	// DeltaRecordCount is Σ row count(ADD) − Σ row count(DELETE) of this commit's delta.
	DeltaRecordCount int64
	// ChangelogRecordCount is Σ row count of changelog files (nil when none; ≤ 1.3 wrote 0).
	ChangelogRecordCount *int64
	// Watermark is max(previous, new) input watermark; nil when unknown.
	Watermark *int64
	// Statistics names the statistics file in statistics/.
	Statistics *string
	// Properties are free commit properties (1.2+), e.g. Fluss's "fluss-offsets". Non-nil maps
	// are written (keys sorted); Java writes null for empty properties.
	Properties map[string]string
	// NextRowID is the next row id for row tracking (1.3+; 0 when row tracking is off).
	NextRowID *int64
	// Operation is the logical operation (HEAD only): WRITE, OVERWRITE, DELETE, ...
	Operation *string

	// extra holds keys this package does not know, in file order, verbatim.
	extra []rawField
}

// ExtraKeys returns the keys of the snapshot JSON this package does not interpret, in file
// order. They are written back by Encode.
func (s *Snapshot) ExtraKeys() []string {
	out := make([]string, len(s.extra))
	for i, f := range s.extra {
		out[i] = f.key
	}
	return out
}

// Extra returns the raw JSON value of an unknown key, or nil.
func (s *Snapshot) Extra(key string) json.RawMessage {
	for i := len(s.extra) - 1; i >= 0; i-- {
		if s.extra[i].key == key {
			return s.extra[i].value
		}
	}
	return nil
}

// fieldDecoder interprets the value of one known key.
type fieldDecoder func(s *Snapshot, v json.RawMessage) error

// setValue decodes a required-shape key with parse; JSON null gives T's
// zero value, as Jackson leaves a primitive long at 0 and a String at null.
func setValue[T any](parse func(json.RawMessage) (T, error), dst func(s *Snapshot) *T) fieldDecoder {
	return func(s *Snapshot, v json.RawMessage) error {
		var zero T
		if isNull(v) {
			*dst(s) = zero
			return nil
		}
		x, err := parse(v)
		if err != nil {
			return err
		}
		*dst(s) = x
		return nil
	}
}

// setOpt decodes an optional key with parse; JSON null gives nil.
func setOpt[T any](parse func(json.RawMessage) (T, error), dst func(s *Snapshot) **T) fieldDecoder {
	return func(s *Snapshot, v json.RawMessage) error {
		if isNull(v) {
			*dst(s) = nil
			return nil
		}
		x, err := parse(v)
		if err != nil {
			return err
		}
		*dst(s) = &x
		return nil
	}
}

func setInt64(dst func(s *Snapshot) *int64) fieldDecoder       { return setValue(parseInt64, dst) }
func setOptInt64(dst func(s *Snapshot) **int64) fieldDecoder   { return setOpt(parseInt64, dst) }
func setString(dst func(s *Snapshot) *string) fieldDecoder     { return setValue(parseString, dst) }
func setOptString(dst func(s *Snapshot) **string) fieldDecoder { return setOpt(parseString, dst) }

// decoders maps each known key to its decoder. Built per call: nothing global is mutable.
func decoders() map[string]fieldDecoder {
	return map[string]fieldDecoder{
		"version": func(s *Snapshot, v json.RawMessage) error {
			if isNull(v) {
				s.Version = 0
				return nil
			}
			n, err := parseInt64(v)
			if err != nil || int64(int32(n)) != n {
				return fmt.Errorf("version: not an int: %s", truncate(string(v)))
			}
			s.Version = int32(n)
			return nil
		},
		"uuid":                      setOptString(func(s *Snapshot) **string { return &s.UUID }),
		"id":                        setInt64(func(s *Snapshot) *int64 { return &s.ID }),
		"schemaId":                  setInt64(func(s *Snapshot) *int64 { return &s.SchemaID }),
		"baseManifestList":          setString(func(s *Snapshot) *string { return &s.BaseManifestList }),
		"baseManifestListSize":      setOptInt64(func(s *Snapshot) **int64 { return &s.BaseManifestListSize }),
		"deltaManifestList":         setString(func(s *Snapshot) *string { return &s.DeltaManifestList }),
		"deltaManifestListSize":     setOptInt64(func(s *Snapshot) **int64 { return &s.DeltaManifestListSize }),
		"changelogManifestList":     setOptString(func(s *Snapshot) **string { return &s.ChangelogManifestList }),
		"changelogManifestListSize": setOptInt64(func(s *Snapshot) **int64 { return &s.ChangelogManifestListSize }),
		"indexManifest":             setOptString(func(s *Snapshot) **string { return &s.IndexManifest }),
		"commitUser":                setString(func(s *Snapshot) *string { return &s.CommitUser }),
		"writerVersion":             setOptString(func(s *Snapshot) **string { return &s.WriterVersion }),
		"commitIdentifier":          setInt64(func(s *Snapshot) *int64 { return &s.CommitIdentifier }),
		"commitKind": func(s *Snapshot, v json.RawMessage) error {
			if isNull(v) {
				s.CommitKind = ""
				return nil
			}
			str, err := parseString(v)
			if err != nil {
				return err
			}
			s.CommitKind = CommitKind(str)
			return nil
		},
		"timeMillis": setInt64(func(s *Snapshot) *int64 { return &s.TimeMillis }),
		"logOffsets": func(s *Snapshot, v json.RawMessage) error {
			if isNull(v) {
				s.LogOffsets = nil
				return nil
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(v, &m); err != nil {
				return fmt.Errorf("logOffsets: %w", err)
			}
			s.LogOffsets = make(map[int32]int64, len(m))
			for k, x := range m {
				b, err := strconv.ParseInt(k, 10, 32)
				if err != nil {
					return fmt.Errorf("logOffsets key %q: %w", k, err)
				}
				off, err := parseInt64(x)
				if err != nil {
					return fmt.Errorf("logOffsets[%s]: %w", k, err)
				}
				s.LogOffsets[int32(b)] = off
			}
			return nil
		},
		"totalRecordCount":     setInt64(func(s *Snapshot) *int64 { return &s.TotalRecordCount }),
		"deltaRecordCount":     setInt64(func(s *Snapshot) *int64 { return &s.DeltaRecordCount }),
		"changelogRecordCount": setOptInt64(func(s *Snapshot) **int64 { return &s.ChangelogRecordCount }),
		"watermark":            setOptInt64(func(s *Snapshot) **int64 { return &s.Watermark }),
		"statistics":           setOptString(func(s *Snapshot) **string { return &s.Statistics }),
		"properties": func(s *Snapshot, v json.RawMessage) error {
			if isNull(v) {
				s.Properties = nil
				return nil
			}
			var m map[string]*string
			if err := json.Unmarshal(v, &m); err != nil {
				return fmt.Errorf("properties: %w", err)
			}
			s.Properties = make(map[string]string, len(m))
			for k, x := range m {
				if x != nil {
					s.Properties[k] = *x
				}
			}
			return nil
		},
		"nextRowId": setOptInt64(func(s *Snapshot) **int64 { return &s.NextRowID }),
		"operation": setOptString(func(s *Snapshot) **string { return &s.Operation }),
	}
}

// Decode parses snapshot JSON of any version. Unknown keys are kept (see ExtraKeys) and written
// back by Encode. Errors wrap ErrCorrupt, or fileio.ErrTooLarge for data over MaxFileSize.
func Decode(data []byte) (*Snapshot, error) {
	if err := checkSize(data); err != nil {
		return nil, err
	}
	fields, err := readObject(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	s := &Snapshot{}
	if err := s.apply(fields, nil); err != nil {
		return nil, err
	}
	if err := checkRequired(fields); err != nil {
		return nil, err
	}
	return s, nil
}

// requiredKeys are the snapshot keys every Paimon version writes and every
// reader needs; a file without one of them is damaged, not an old version
// (Java fails on it when it dereferences the missing value).
var requiredKeys = []string{"id", "schemaId", "baseManifestList", "deltaManifestList", "commitUser", "commitIdentifier", "commitKind", "timeMillis"}

func checkRequired(fields []rawField) error {
	for _, k := range requiredKeys {
		found := false
		for _, f := range fields {
			if f.key == k {
				found = !isNull(f.value)
				break
			}
		}
		if !found {
			return fmt.Errorf("%w: missing key %q", ErrCorrupt, k)
		}
	}
	return nil
}

// apply interprets fields; keys in skip (tag fields) are left to the caller.
func (s *Snapshot) apply(fields []rawField, skip map[string]bool) error {
	decs := decoders()
	for _, f := range fields {
		if skip[f.key] {
			continue
		}
		d, ok := decs[f.key]
		if !ok {
			s.extra = append(s.extra, f)
			continue
		}
		if err := d(s, f.value); err != nil {
			return fmt.Errorf("%w: key %q: %w", ErrCorrupt, f.key, err)
		}
	}
	return nil
}

// Encode renders s as Java HEAD writes it: Jackson pretty printing, keys in Java's order
// (version, uuid, id, schemaId, baseManifestList, baseManifestListSize, deltaManifestList,
// deltaManifestListSize, changelogManifestList, changelogManifestListSize, indexManifest,
// commitUser, writerVersion, commitIdentifier, commitKind, timeMillis, logOffsets,
// totalRecordCount, deltaRecordCount, changelogRecordCount, watermark, statistics, properties,
// nextRowId, operation), nil optional fields omitted, then unknown keys kept from Decode.
// logOffsets (removed from Java in 1.4) is written where Paimon ≤ 1.3 wrote it.
func (s *Snapshot) Encode() ([]byte, error) {
	w := &jsonWriter{}
	w.beginObject()
	s.encodeFields(w)
	if err := s.encodeExtra(w); err != nil {
		return nil, err
	}
	w.endObject()
	return w.buf.Bytes(), nil
}

// encodeFields writes the known keys (not the unknown ones).
func (s *Snapshot) encodeFields(w *jsonWriter) {
	optStr := func(k string, v *string) {
		if v != nil {
			w.key(k)
			w.str(*v)
		}
	}
	optInt := func(k string, v *int64) {
		if v != nil {
			w.key(k)
			w.int(*v)
		}
	}
	w.key("version")
	w.int(int64(s.Version))
	optStr("uuid", s.UUID)
	w.key("id")
	w.int(s.ID)
	w.key("schemaId")
	w.int(s.SchemaID)
	w.key("baseManifestList")
	w.str(s.BaseManifestList)
	optInt("baseManifestListSize", s.BaseManifestListSize)
	w.key("deltaManifestList")
	w.str(s.DeltaManifestList)
	optInt("deltaManifestListSize", s.DeltaManifestListSize)
	optStr("changelogManifestList", s.ChangelogManifestList)
	optInt("changelogManifestListSize", s.ChangelogManifestListSize)
	optStr("indexManifest", s.IndexManifest)
	w.key("commitUser")
	w.str(s.CommitUser)
	optStr("writerVersion", s.WriterVersion)
	w.key("commitIdentifier")
	w.int(s.CommitIdentifier)
	w.key("commitKind")
	w.str(string(s.CommitKind))
	w.key("timeMillis")
	w.int(s.TimeMillis)
	if s.LogOffsets != nil {
		w.key("logOffsets")
		w.beginObject()
		for _, b := range slices.Sorted(maps.Keys(s.LogOffsets)) {
			w.key(strconv.Itoa(int(b)))
			w.int(s.LogOffsets[b])
		}
		w.endObject()
	}
	w.key("totalRecordCount")
	w.int(s.TotalRecordCount)
	w.key("deltaRecordCount")
	w.int(s.DeltaRecordCount)
	optInt("changelogRecordCount", s.ChangelogRecordCount)
	optInt("watermark", s.Watermark)
	optStr("statistics", s.Statistics)
	if s.Properties != nil {
		w.key("properties")
		w.beginObject()
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			w.key(k)
			w.str(s.Properties[k])
		}
		w.endObject()
	}
	optInt("nextRowId", s.NextRowID)
	optStr("operation", s.Operation)
}

func (s *Snapshot) encodeExtra(w *jsonWriter) error {
	// Later duplicates win, as when decoding; write each unknown key once, at its last position.
	last := map[string]int{}
	for i, f := range s.extra {
		last[f.key] = i
	}
	for i, f := range s.extra {
		if last[f.key] != i {
			continue
		}
		w.key(f.key)
		if err := w.raw(f.value); err != nil {
			return fmt.Errorf("snapshot: encode key %q: %w", f.key, err)
		}
	}
	return nil
}
