package schema

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/paimon-go/paimon/fileio"
)

// FS is the part of *fileio.FileIO the Manager uses. Paths are '/'-separated
// and relative to the FS root; ReadFile of a missing file and CreateIfAbsent
// of a taken path fail with errors wrapping fileio.ErrNotExist
// (= fs.ErrNotExist) and fileio.ErrExist (= fs.ErrExist).
type FS interface {
	ReadFile(ctx context.Context, path string) ([]byte, error)
	List(ctx context.Context, dir string) ([]fileio.FileInfo, error)
	CreateIfAbsent(ctx context.Context, path string, data []byte) error
}

// MainBranch is the name of the default branch (BranchManager.DEFAULT_MAIN_BRANCH).
const MainBranch = "main"

// BranchRoot returns the table sub-root of a branch: root itself for "" and
// "main", else root/branch/branch-<name> (BranchManager.branchPath).
func BranchRoot(root, branch string) string {
	if branch == "" || branch == MainBranch {
		return root
	}
	return path.Join(root, "branch", "branch-"+branch)
}

// Manager reads and commits the schema files of one table root (or branch
// sub-root, see BranchRoot): <root>/schema/schema-<id>. It mirrors
// paimon-core SchemaManager. It holds no cache; it is safe for concurrent
// use if its FS is.
type Manager struct {
	fs   FS
	root string
}

// NewManager returns a Manager for the table (or branch) at root, a path
// relative to the FS root ("" when the FS is rooted at the table).
func NewManager(fsys FS, root string) *Manager { return &Manager{fs: fsys, root: root} }

// Branch returns a Manager for the given branch of this Manager's table,
// which must be the main table root.
func (m *Manager) Branch(name string) *Manager {
	return &Manager{fs: m.fs, root: BranchRoot(m.root, name)}
}

// Root returns the table (or branch) root this Manager works on.
func (m *Manager) Root() string { return m.root }

// Dir returns the schema directory, <root>/schema.
func (m *Manager) Dir() string { return path.Join(m.root, "schema") }

// Path returns the path of schema file id, <root>/schema/schema-<id>.
func (m *Manager) Path(id int64) string { return path.Join(m.Dir(), FileName(id)) }

// List returns the ids of all schema files, ascending (SchemaManager.listAllIds).
// Other files in the directory (e.g. temporary files) are ignored. A missing
// directory gives no ids.
func (m *Manager) List(ctx context.Context) ([]int64, error) {
	infos, err := m.fs.List(ctx, m.Dir())
	if err != nil {
		return nil, fmt.Errorf("schema: list %s: %w", m.Dir(), err)
	}
	var ids []int64
	for _, fi := range infos {
		if fi.IsDir {
			continue
		}
		if id, ok := ParseFileName(path.Base(fi.Path)); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Get reads and decodes schema id. A missing file gives an error wrapping
// fs.ErrNotExist; a bad file ErrCorrupt or ErrInvalidSchema, naming the path.
func (m *Manager) Get(ctx context.Context, id int64) (*TableSchema, error) {
	p := m.Path(id)
	data, err := readFile(ctx, m.fs, p)
	if err != nil {
		return nil, fmt.Errorf("schema: read %s: %w", p, err)
	}
	s, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("%w: %s holds schema id %d", ErrCorrupt, p, s.ID)
	}
	return s, nil
}

// Latest returns the schema with the highest id (SchemaManager.latest). A
// table without schema files gives an error wrapping fs.ErrNotExist.
func (m *Manager) Latest(ctx context.Context) (*TableSchema, error) {
	ids, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("schema: no schema file in %s: %w", m.Dir(), fs.ErrNotExist)
	}
	return m.Get(ctx, ids[len(ids)-1])
}

// All returns every schema, by ascending id (SchemaManager.listAll).
func (m *Manager) All(ctx context.Context) ([]*TableSchema, error) {
	ids, err := m.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*TableSchema, 0, len(ids))
	for _, id := range ids {
		s, err := m.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Commit validates s, encodes it and creates schema-<s.ID> only if absent
// (SchemaManager.commit → FileIO.tryToWriteAtomic). If the id is taken the
// error wraps fs.ErrExist: the caller lost a race and should re-read Latest
// and retry with the next id. If the error wraps fileio.ErrOutcomeUnknown
// (never together with fs.ErrExist), schema-<s.ID> may hold s: the caller
// must not take it as a lost race; it should read the file back (or fail).
func (m *Manager) Commit(ctx context.Context, s *TableSchema) error {
	if err := s.Validate(); err != nil {
		return err
	}
	data, err := s.Encode()
	if err != nil {
		return err
	}
	p := m.Path(s.ID)
	if err := m.fs.CreateIfAbsent(ctx, p, data); err != nil {
		return fmt.Errorf("schema: commit %s: %w", p, err)
	}
	return nil
}
