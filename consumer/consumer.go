// Package consumer reads and writes the progress files of a table's streaming
// consumers, as Java Paimon's org.apache.paimon.consumer.ConsumerManager and
// Consumer do.
//
// A consumer with id ID is the file consumer/consumer-ID below the branch root
// (branch/branch-<name>/ for a branch other than main). It holds Java's JSON
// form of the Consumer, pretty-printed as Java's JsonSerdeUtil.toJson writes
// it:
//
//	{
//	  "nextSnapshot" : 7
//	}
//
// nextSnapshot is the id of the first snapshot the consumer has not yet
// consumed. Snapshot expiration keeps every snapshot from the smallest
// nextSnapshot of the branch's consumers on (see package expire), and
// consumers whose file was not modified for consumer.expiration-time are
// removed (Expire).
//
// # Errors
//
// A consumer file that is not {"nextSnapshot": <id>} is reported as
// ErrCorrupt naming the file; a file larger than MaxFileSize as
// fileio.ErrTooLarge; an id that cannot name a file as ErrInvalidID. A missing
// consumer is not an error (Read reports ok=false).
package consumer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-go/paimon/fileio"
)

// Dir and Prefix place consumer files: <branch root>Dir/Prefix<id> (Java
// ConsumerManager.consumerPath).
const (
	Dir    = "consumer"
	Prefix = "consumer-"
)

// MaxFileSize is the largest consumer file read, in bytes: Java's Consumer
// JSON is a few dozen bytes, so a larger file is refused (fileio.ErrTooLarge)
// rather than read whole.
const MaxFileSize = 1 << 20

var (
	// ErrCorrupt marks a consumer file that is not {"nextSnapshot": <id>}.
	ErrCorrupt = errors.New("consumer: corrupt consumer file")
	// ErrInvalidID marks a consumer id that is empty or cannot be a file name
	// (it holds '/' or is "." or "..").
	ErrInvalidID = errors.New("consumer: invalid consumer id")
)

// Manager reads and writes the consumers of one branch of a table (Java
// ConsumerManager). It holds no state beyond its location and is safe for
// concurrent use.
type Manager struct {
	fio *fileio.FileIO
	dir string // "consumer/" below the branch root
}

// New returns the Manager of branch ("" or "main" for the main branch) of the
// table rooted at fio.
func New(fio *fileio.FileIO, branch string) *Manager {
	root := ""
	if branch != "" && branch != "main" {
		root = "branch/branch-" + branch + "/"
	}
	return &Manager{fio: fio, dir: root + Dir}
}

// Path returns the path of consumer id's file, relative to the table root.
func (m *Manager) Path(id string) string { return m.dir + "/" + Prefix + id }

func checkID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\\") {
		return fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	return nil
}

// Encode returns the bytes Java writes for a consumer whose next snapshot is
// next: {"nextSnapshot" : next} in Jackson's default pretty-printed form.
func Encode(next int64) []byte {
	return []byte("{\n  \"nextSnapshot\" : " + strconv.FormatInt(next, 10) + "\n}")
}

// Decode parses a consumer file's bytes; file names it in errors. Unknown
// fields are ignored, as Java's @JsonIgnoreProperties(ignoreUnknown = true)
// does. Errors: ErrCorrupt when data is not a JSON object with an integer
// nextSnapshot.
func Decode(file string, data []byte) (int64, error) {
	var c struct {
		NextSnapshot *json.Number `json:"nextSnapshot"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil || c.NextSnapshot == nil {
		return 0, fmt.Errorf("%w: %s is not {\"nextSnapshot\": <id>}", ErrCorrupt, file)
	}
	if dec.More() {
		return 0, fmt.Errorf("%w: %s has data after the JSON object", ErrCorrupt, file)
	}
	n, err := strconv.ParseInt(c.NextSnapshot.String(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: nextSnapshot %s is not a snapshot id", ErrCorrupt, file, c.NextSnapshot)
	}
	return n, nil
}

// Read returns the next snapshot of consumer id (Java
// ConsumerManager.consumer); ok is false if the consumer does not exist.
func (m *Manager) Read(ctx context.Context, id string) (next int64, ok bool, err error) {
	if err := checkID(id); err != nil {
		return 0, false, err
	}
	return m.read(ctx, m.Path(id))
}

func (m *Manager) read(ctx context.Context, p string) (int64, bool, error) {
	data, err := m.fio.ReadFileLimit(ctx, p, MaxFileSize)
	if errors.Is(err, fileio.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("consumer: read %s: %w", p, err)
	}
	n, err := Decode(p, data)
	if err != nil {
		return 0, false, err
	}
	return n, true, nil
}

// Write sets consumer id's next snapshot to next, replacing the file whole
// (Java ConsumerManager.resetConsumer): readers see the old or the new
// content, never a mix.
func (m *Manager) Write(ctx context.Context, id string, next int64) error {
	if err := checkID(id); err != nil {
		return err
	}
	p := m.Path(id)
	if err := m.fio.WriteFile(ctx, p, Encode(next)); err != nil {
		return fmt.Errorf("consumer: write %s: %w", p, err)
	}
	return nil
}

// Delete removes consumer id (Java ConsumerManager.deleteConsumer); deleting
// a missing consumer is not an error.
func (m *Manager) Delete(ctx context.Context, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	p := m.Path(id)
	if err := m.fio.Delete(ctx, p); err != nil && !errors.Is(err, fileio.ErrNotExist) {
		return fmt.Errorf("consumer: delete %s: %w", p, err)
	}
	return nil
}

// file is one consumer file found by listing.
type file struct {
	id      string
	path    string
	modTime time.Time
}

func (m *Manager) files(ctx context.Context) ([]file, error) {
	infos, err := m.fio.List(ctx, m.dir)
	if errors.Is(err, fileio.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("consumer: list %s: %w", m.dir, err)
	}
	var out []file
	for _, fi := range infos {
		name := path.Base(fi.Path)
		if fi.IsDir || !strings.HasPrefix(name, Prefix) || len(name) == len(Prefix) {
			continue
		}
		out = append(out, file{id: name[len(Prefix):], path: fi.Path, modTime: fi.ModTime})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

// List returns every consumer of the branch: id → next snapshot (Java
// ConsumerManager.consumers). A file deleted between listing and reading is
// skipped.
func (m *Manager) List(ctx context.Context) (map[string]int64, error) {
	fs, err := m.files(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(fs))
	for _, f := range fs {
		n, ok, err := m.read(ctx, f.path)
		if err != nil {
			return nil, err
		}
		if ok {
			out[f.id] = n
		}
	}
	return out, nil
}

// MinNextSnapshot returns the smallest next snapshot of the branch's
// consumers (Java ConsumerManager.minNextSnapshot); ok is false when there is
// no consumer.
func (m *Manager) MinNextSnapshot(ctx context.Context) (min int64, ok bool, err error) {
	all, err := m.List(ctx)
	if err != nil {
		return 0, false, err
	}
	for _, n := range all {
		if !ok || n < min {
			min, ok = n, true
		}
	}
	return min, ok, nil
}

// Expire deletes the consumers whose file was last modified before before
// (Java ConsumerManager.expire; callers pass now - consumer.expiration-time)
// and returns their ids, sorted.
func (m *Manager) Expire(ctx context.Context, before time.Time) ([]string, error) {
	fs, err := m.files(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range fs {
		if !f.modTime.Before(before) {
			continue
		}
		if err := m.fio.Delete(ctx, f.path); err != nil && !errors.Is(err, fileio.ErrNotExist) {
			return out, fmt.Errorf("consumer: delete %s: %w", f.path, err)
		}
		out = append(out, f.id)
	}
	return out, nil
}
