// Package catalog is Paimon's filesystem catalog: databases and tables laid
// out below one warehouse location on any store fileio can open,
//
//	<warehouse>/<database>.db/<table>/schema/schema-0
//
// It mirrors apache/paimon paimon-core org.apache.paimon.catalog.FileSystemCatalog
// and the parts of AbstractCatalog it relies on (listDatabasesInFileSystem,
// listTablesInFileSystem, tableExistsInFileSystem). No lock service is used:
// table creation is a create-if-absent of schema-0, so of several racing
// creators exactly one succeeds and the others get ErrTableExist.
//
// # Databases on object stores
//
// Java creates a database with FileIO.mkdirs. Object stores (and fileio, which
// treats every store alike) have no empty directories, so CreateDatabase
// writes a small marker file, <database>.db/.paimon-database, which keeps the
// directory visible while the database holds no table. Java lists databases
// and tables by directory, so it ignores the marker. An empty database that
// Java created on a local disk (an empty directory) is not visible here
// until it holds a file.
//
// # Schema changes
//
// AlterTable applies SchemaChanges (add, rename, drop, move and retype
// columns, set and remove options, comments) as Java's
// SchemaManager.commitChanges does and publishes schema-(N+1) only if
// absent, retrying on the new latest schema when a concurrent change took
// the id. Field ids never change and are never reused, so readers match old
// data files to the new schema by id (renamed columns keep their values,
// dropped ones disappear, added ones read as null, widened ones are
// converted). ApplyChanges is the same rule set without I/O.
//
// # Errors
//
// Errors wrap one of the sentinels below (test with errors.Is) and name the
// database or table; store errors are wrapped unchanged.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrDatabaseNotExist: the database directory does not exist
	// (Catalog.DatabaseNotExistException).
	ErrDatabaseNotExist = errors.New("catalog: database does not exist")
	// ErrDatabaseExist: CreateDatabase found the database
	// (Catalog.DatabaseAlreadyExistException).
	ErrDatabaseExist = errors.New("catalog: database already exists")
	// ErrDatabaseNotEmpty: DropDatabase without cascade found tables
	// (Catalog.DatabaseNotEmptyException).
	ErrDatabaseNotEmpty = errors.New("catalog: database is not empty")
	// ErrTableNotExist: no schema file below the table directory
	// (Catalog.TableNotExistException).
	ErrTableNotExist = errors.New("catalog: table does not exist")
	// ErrTableExist: CreateTable found a schema file, or lost the race for
	// schema-0 (Catalog.TableAlreadyExistException).
	ErrTableExist = errors.New("catalog: table already exists")
	// ErrInvalidName: an empty database or table name, one that is not a
	// single path element, the system database "sys", or a table name with
	// the system-table separator '$'.
	ErrInvalidName = errors.New("catalog: invalid name")
	// ErrInvalidSchema: CreateTable's schema is rejected, by Java's
	// Schema/SchemaValidation rules mirrored here or by schema.Validate (whose
	// schema.ErrInvalidSchema is wrapped as well).
	ErrInvalidSchema = errors.New("catalog: invalid table schema")
)

const (
	// DBSuffix is appended to a database name to form its directory
	// (Catalog.DB_SUFFIX).
	DBSuffix = ".db"
	// SystemDatabase is the name reserved for system tables
	// (Catalog.SYSTEM_DATABASE_NAME).
	SystemDatabase = "sys"
	// DatabaseMarker is the file CreateDatabase writes inside the database
	// directory so that an empty database exists on object stores.
	DatabaseMarker = ".paimon-database"
	// systemTableSplitter separates a table name from a branch or system
	// table name (Catalog.SYSTEM_TABLE_SPLITTER).
	systemTableSplitter = "$"
)

// Identifier names a table: database and table name (Java
// org.apache.paimon.catalog.Identifier without branch or system-table parts).
type Identifier struct {
	Database string
	Table    string
}

// NewIdentifier returns the identifier of table in database.
func NewIdentifier(database, table string) Identifier {
	return Identifier{Database: database, Table: table}
}

// ParseIdentifier parses "database.table" (Identifier.fromString): the
// database is the part before the first '.'. Errors wrap ErrInvalidName.
func ParseIdentifier(s string) (Identifier, error) {
	db, tbl, ok := strings.Cut(s, ".")
	if !ok || db == "" || tbl == "" {
		return Identifier{}, fmt.Errorf("%w: %q is not of the form database.table", ErrInvalidName, s)
	}
	return Identifier{Database: db, Table: tbl}, nil
}

// String returns "database.table" (Identifier.getFullName).
func (id Identifier) String() string { return id.Database + "." + id.Table }

// Schema is the definition of a new table (Java org.apache.paimon.schema.Schema):
// columns, partition keys, primary keys (full, partition keys included),
// options and comment. Field ids in Fields are ignored: CreateTable assigns
// them as Java's Schema.Builder does (top-level columns from 0, nested ROW
// fields after).
type Schema struct {
	Fields        []types.DataField
	PartitionKeys []string
	PrimaryKeys   []string
	Options       map[string]string
	Comment       string
}

// Table is a table found by GetTable: its identifier, a FileIO rooted at the
// table directory (a view of the catalog's store; closing the catalog closes
// it) and its latest schema.
type Table struct {
	Identifier Identifier
	FileIO     *fileio.FileIO
	Schema     *schema.TableSchema
}

// Catalog is a filesystem catalog over one warehouse location
// (FileSystemCatalog). It holds no cache and is safe for concurrent use.
type Catalog struct {
	wh  *fileio.FileIO
	own bool
	now func() time.Time
}

// Open opens the catalog whose warehouse is at url (any URL fileio.Open
// accepts: file://, mem://, s3://, and gs:// or azblob:// with their driver
// imported, see fileio/gcs and fileio/azure). Close releases the store.
func Open(ctx context.Context, url string) (*Catalog, error) {
	f, err := fileio.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return &Catalog{wh: f, own: true, now: time.Now}, nil
}

// New returns a catalog over the warehouse rooted at wh. Closing the
// catalog does not close wh.
func New(wh *fileio.FileIO) *Catalog { return &Catalog{wh: wh, now: time.Now} }

// Close closes the store if the catalog opened it (Open).
func (c *Catalog) Close() error {
	if c.own {
		return c.wh.Close()
	}
	return nil
}

// Warehouse returns the URL of the warehouse root.
func (c *Catalog) Warehouse() string { return c.wh.URL() }

// DatabasePath returns the directory of a database relative to the
// warehouse, "<name>.db" (AbstractCatalog.newDatabasePath).
func DatabasePath(name string) string { return name + DBSuffix }

// TablePath returns the directory of a table relative to the warehouse,
// "<db>.db/<table>" (AbstractCatalog.getTableLocation).
func TablePath(id Identifier) string { return DatabasePath(id.Database) + "/" + id.Table }

func checkName(kind, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\") {
		return fmt.Errorf("%w: %s name %q", ErrInvalidName, kind, name)
	}
	return nil
}

func checkDatabaseName(name string) error {
	if err := checkName("database", name); err != nil {
		return err
	}
	if name == SystemDatabase {
		return fmt.Errorf("%w: %q is the system database", ErrInvalidName, name)
	}
	return nil
}

func checkIdentifier(id Identifier) error {
	if err := checkDatabaseName(id.Database); err != nil {
		return err
	}
	if err := checkName("table", id.Table); err != nil {
		return err
	}
	if strings.Contains(id.Table, systemTableSplitter) {
		return fmt.Errorf("%w: table name %q contains the system table separator %q", ErrInvalidName, id.Table, systemTableSplitter)
	}
	return nil
}

// DatabaseExists reports whether the database directory holds any file
// (AbstractCatalog.getDatabase → FileIO.exists of the directory).
func (c *Catalog) DatabaseExists(ctx context.Context, name string) (bool, error) {
	if err := checkDatabaseName(name); err != nil {
		return false, err
	}
	entries, err := c.wh.List(ctx, DatabasePath(name))
	if err != nil {
		return false, fmt.Errorf("catalog: database %s: %w", name, err)
	}
	return len(entries) > 0, nil
}

// CreateDatabase creates database name by writing its marker file
// (AbstractCatalog.createDatabase). If it exists, the error wraps
// ErrDatabaseExist unless ignoreIfExists.
func (c *Catalog) CreateDatabase(ctx context.Context, name string, ignoreIfExists bool) error {
	ok, err := c.DatabaseExists(ctx, name)
	if err != nil {
		return err
	}
	if ok {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("%w: %s", ErrDatabaseExist, name)
	}
	err = c.wh.CreateIfAbsent(ctx, DatabasePath(name)+"/"+DatabaseMarker, nil)
	if err != nil && !errors.Is(err, fileio.ErrExist) {
		return fmt.Errorf("catalog: create database %s: %w", name, err)
	}
	if err != nil && !ignoreIfExists {
		return fmt.Errorf("%w: %s", ErrDatabaseExist, name)
	}
	return nil
}

// ListDatabases returns the database names, sorted: the directories of the
// warehouse whose names end in ".db" (listDatabasesInFileSystem).
func (c *Catalog) ListDatabases(ctx context.Context) ([]string, error) {
	entries, err := c.wh.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("catalog: list databases: %w", err)
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Path, DBSuffix); e.IsDir && ok && name != "" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// DropDatabase deletes database name and every file below it
// (AbstractCatalog.dropDatabase). A missing database wraps
// ErrDatabaseNotExist unless ignoreIfNotExists; a database with tables wraps
// ErrDatabaseNotEmpty unless cascade.
func (c *Catalog) DropDatabase(ctx context.Context, name string, ignoreIfNotExists, cascade bool) error {
	ok, err := c.DatabaseExists(ctx, name)
	if err != nil {
		return err
	}
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return fmt.Errorf("%w: %s", ErrDatabaseNotExist, name)
	}
	if !cascade {
		tables, err := c.ListTables(ctx, name)
		if err != nil {
			return err
		}
		if len(tables) > 0 {
			return fmt.Errorf("%w: %s has tables %v", ErrDatabaseNotEmpty, name, tables)
		}
	}
	return c.deleteTree(ctx, DatabasePath(name))
}

// deleteTree deletes every file below dir. Files that vanish meanwhile are
// not an error.
func (c *Catalog) deleteTree(ctx context.Context, dir string) error {
	files, err := c.wh.ListRecursive(ctx, dir)
	if err != nil {
		return fmt.Errorf("catalog: list %s: %w", dir, err)
	}
	for _, f := range files {
		if err := c.wh.Delete(ctx, f.Path); err != nil && !errors.Is(err, fileio.ErrNotExist) {
			return fmt.Errorf("catalog: delete %s: %w", f.Path, err)
		}
	}
	return nil
}

// ListTables returns the names of the tables of database, sorted: its
// subdirectories that hold a schema file (listTablesInFileSystem). A missing
// database wraps ErrDatabaseNotExist.
func (c *Catalog) ListTables(ctx context.Context, database string) ([]string, error) {
	ok, err := c.DatabaseExists(ctx, database)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrDatabaseNotExist, database)
	}
	entries, err := c.wh.List(ctx, DatabasePath(database))
	if err != nil {
		return nil, fmt.Errorf("catalog: list tables of %s: %w", database, err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir {
			continue
		}
		name := e.Path[strings.LastIndexByte(e.Path, '/')+1:]
		exists, err := c.tableExists(ctx, NewIdentifier(database, name))
		if err != nil {
			return nil, err
		}
		if exists {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// tableExists is tableExistsInFileSystem: schema-0 exists, or any schema
// file does.
func (c *Catalog) tableExists(ctx context.Context, id Identifier) (bool, error) {
	root := TablePath(id)
	ok, err := c.wh.Exists(ctx, root+"/schema/"+schema.FileName(0))
	if err != nil || ok {
		return ok, err
	}
	ids, err := schema.NewManager(c.wh, root).List(ctx)
	if err != nil {
		return false, err
	}
	return len(ids) > 0, nil
}

// TableExists reports whether the table has a schema file.
func (c *Catalog) TableExists(ctx context.Context, id Identifier) (bool, error) {
	if err := checkIdentifier(id); err != nil {
		return false, err
	}
	return c.tableExists(ctx, id)
}

// GetTable returns the table with its latest schema (loadTableSchema). A
// missing table wraps ErrTableNotExist; a schema with a malformed option
// value (see ValidateOptions) wraps ErrInvalidSchema and
// schema.ErrInvalidOption, naming the table, the option and the value.
func (c *Catalog) GetTable(ctx context.Context, id Identifier) (*Table, error) {
	if err := checkIdentifier(id); err != nil {
		return nil, err
	}
	fio := c.wh.Sub(TablePath(id))
	ts, err := schema.NewManager(fio, "").Latest(ctx)
	if err != nil {
		if errors.Is(err, fileio.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrTableNotExist, id)
		}
		if errors.Is(err, schema.ErrInvalidOption) {
			// Decoding already refused an option (the bucket count).
			return nil, invalidSchema("table "+id.String(), err)
		}
		return nil, fmt.Errorf("catalog: table %s: %w", id, err)
	}
	if err := ValidateOptions(ts); err != nil {
		return nil, invalidSchema(fmt.Sprintf("table %s (schema %d)", id, ts.ID), err)
	}
	return &Table{Identifier: id, FileIO: fio, Schema: ts}, nil
}

// DropTable deletes the table directory and every file below it
// (AbstractCatalog.dropTable). A missing table wraps ErrTableNotExist unless
// ignoreIfNotExists. Data files at external paths are not deleted.
func (c *Catalog) DropTable(ctx context.Context, id Identifier, ignoreIfNotExists bool) error {
	ok, err := c.TableExists(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return fmt.Errorf("%w: %s", ErrTableNotExist, id)
	}
	return c.deleteTree(ctx, TablePath(id))
}

// CreateTable creates the table: it builds schema 0 from s as Java's
// SchemaManager.createTable does and publishes schema/schema-0 only if
// absent (AbstractCatalog.createTable, FileSystemCatalog.createTableImpl).
//
// As in Java, the options "primary-key" and "partition" may name the keys
// instead of s.PrimaryKeys / s.PartitionKeys (they are moved out of the
// options), primary key columns are made NOT NULL unless
// "primary-key.nullable" is true, field ids are assigned afresh, and the
// "bucket" rules of SchemaValidation.validateBucket apply.
//
// Errors: ErrDatabaseNotExist, ErrTableExist (unless ignoreIfExists; also when
// a racing creator won), ErrInvalidName, ErrInvalidSchema.
func (c *Catalog) CreateTable(ctx context.Context, id Identifier, s Schema, ignoreIfExists bool) error {
	if err := checkIdentifier(id); err != nil {
		return err
	}
	ok, err := c.DatabaseExists(ctx, id.Database)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %s", ErrDatabaseNotExist, id.Database)
	}
	exists, err := c.tableExists(ctx, id)
	if err != nil {
		return err
	}
	if exists {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("%w: %s", ErrTableExist, id)
	}
	ts, err := NewTableSchema(s, c.now().UnixMilli())
	if err != nil {
		return wrapOp("create table "+id.String(), err)
	}
	err = schema.NewManager(c.wh, TablePath(id)).Commit(ctx, ts)
	if errors.Is(err, fileio.ErrExist) {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("%w: %s: %w", ErrTableExist, id, err)
	}
	if err != nil {
		return wrapOp("create table "+id.String(), err)
	}
	return nil
}
