package catalog

import (
	"context"
	"errors"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

func memCatalog(t *testing.T) (*Catalog, *fileio.FileIO) {
	t.Helper()
	ctx := context.Background()
	f, err := fileio.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	c := New(f)
	c.now = func() time.Time { return time.UnixMilli(1755848431346) }
	return c, f
}

func TestDatabases(t *testing.T) {
	ctx := context.Background()
	c, f := memCatalog(t)
	if dbs, err := c.ListDatabases(ctx); err != nil || len(dbs) != 0 {
		t.Fatalf("ListDatabases of empty warehouse = %v, %v", dbs, err)
	}
	for _, db := range []string{"b", "a"} {
		if err := c.CreateDatabase(ctx, db, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.CreateDatabase(ctx, "a", false); !errors.Is(err, ErrDatabaseExist) {
		t.Fatalf("second CreateDatabase: %v, want ErrDatabaseExist", err)
	}
	if err := c.CreateDatabase(ctx, "a", true); err != nil {
		t.Fatalf("CreateDatabase ignoreIfExists: %v", err)
	}
	if ok, _ := f.Exists(ctx, "a.db/.paimon-database"); !ok {
		t.Fatal("marker a.db/.paimon-database missing")
	}
	dbs, err := c.ListDatabases(ctx)
	if err != nil || !slices.Equal(dbs, []string{"a", "b"}) {
		t.Fatalf("ListDatabases = %v, %v; want [a b]", dbs, err)
	}
	for _, bad := range []string{"", "sys", "x/y", ".."} {
		if err := c.CreateDatabase(ctx, bad, false); !errors.Is(err, ErrInvalidName) {
			t.Errorf("CreateDatabase(%q) = %v, want ErrInvalidName", bad, err)
		}
	}
	id := NewIdentifier("a", "t")
	if err := c.CreateTable(ctx, id, Schema{Fields: []types.DataField{{Name: "x", Type: types.Int()}}}, false); err != nil {
		t.Fatal(err)
	}
	if err := c.DropDatabase(ctx, "a", false, false); !errors.Is(err, ErrDatabaseNotEmpty) {
		t.Fatalf("DropDatabase non-empty = %v, want ErrDatabaseNotEmpty", err)
	}
	if err := c.DropDatabase(ctx, "a", false, true); err != nil {
		t.Fatal(err)
	}
	if files, _ := f.ListRecursive(ctx, "a.db"); len(files) != 0 {
		t.Fatalf("files left after cascade drop: %v", files)
	}
	if err := c.DropDatabase(ctx, "a", false, false); !errors.Is(err, ErrDatabaseNotExist) {
		t.Fatalf("DropDatabase missing = %v, want ErrDatabaseNotExist", err)
	}
	if err := c.DropDatabase(ctx, "a", true, false); err != nil {
		t.Fatal(err)
	}
	if err := c.DropDatabase(ctx, "b", false, false); err != nil {
		t.Fatal(err)
	}
	if dbs, _ := c.ListDatabases(ctx); len(dbs) != 0 {
		t.Fatalf("ListDatabases after drops = %v", dbs)
	}
}

// TestCreateTableMatchesJava rebuilds the Java-written schema-0 of the
// pk_table_nested_type_parquet fixture from its DDL (primary key columns given
// nullable, as SQL engines may pass them, and field ids unset) and compares
// every value Java stored.
func TestCreateTableMatchesJava(t *testing.T) {
	ctx := context.Background()
	c, f := memCatalog(t)
	want, err := os.ReadFile("../testdata/paimon-tables/pk_table_nested_type_parquet/schema/schema-0")
	if err != nil {
		t.Fatal(err)
	}
	wantSchema, err := schema.Decode(want)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	s := Schema{
		Fields: []types.DataField{
			{Name: "shopId", Type: types.Int()},
			{Name: "dt", Type: types.String()},
			{Name: "hr", Type: types.Int()},
			{Name: "col0", Type: types.Int()},
			{Name: "col1", Type: types.RowOf(
				types.DataField{Name: "f0", Type: types.String()},
				types.DataField{Name: "f1", Type: types.Int()},
				types.DataField{Name: "f2", Type: types.ArrayOf(types.Int())})},
			{Name: "col2", Type: types.MapOf(types.Int(), types.Int())},
		},
		PartitionKeys: []string{"dt", "hr"},
		Options: map[string]string{
			"primary-key": "shopId, dt,hr", "bucket": "2", "bucket-key": "shopId",
			"manifest.format": "orc", "file.format": "parquet",
		},
	}
	id := NewIdentifier("db", "pk_table_nested_type")
	if err := c.CreateTable(ctx, id, s, false); err != nil {
		t.Fatal(err)
	}
	raw, err := f.ReadFile(ctx, "db.db/pk_table_nested_type/schema/schema-0")
	if err != nil {
		t.Fatal(err)
	}
	got, err := schema.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Fields) != len(wantSchema.Fields) {
		t.Fatalf("fields %v, want %v", got.Fields, wantSchema.Fields)
	}
	for i := range got.Fields {
		if !got.Fields[i].Equal(wantSchema.Fields[i]) {
			t.Errorf("field %d = %v, want %v", i, got.Fields[i], wantSchema.Fields[i])
		}
	}
	if got.Version != 3 || got.ID != 0 || got.HighestFieldID != 8 || got.TimeMillis != wantSchema.TimeMillis ||
		!slices.Equal(got.PartitionKeys, wantSchema.PartitionKeys) || !slices.Equal(got.PrimaryKeys, wantSchema.PrimaryKeys) ||
		!maps.Equal(got.Options, wantSchema.Options) {
		t.Errorf("schema = %+v\nwant %+v", got, wantSchema)
	}

	tbl, err := c.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Schema.ID != 0 || tbl.FileIO.URL() != f.URL()+"/db.db/pk_table_nested_type" {
		t.Errorf("GetTable = schema %d at %s", tbl.Schema.ID, tbl.FileIO.URL())
	}
	if err := c.CreateTable(ctx, id, s, false); !errors.Is(err, ErrTableExist) {
		t.Errorf("second CreateTable = %v, want ErrTableExist", err)
	}
	if err := c.CreateTable(ctx, id, s, true); err != nil {
		t.Errorf("CreateTable ignoreIfExists = %v", err)
	}
	if tables, err := c.ListTables(ctx, "db"); err != nil || !slices.Equal(tables, []string{"pk_table_nested_type"}) {
		t.Errorf("ListTables = %v, %v", tables, err)
	}
	if err := c.DropTable(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTable(ctx, id); !errors.Is(err, ErrTableNotExist) {
		t.Errorf("GetTable after drop = %v, want ErrTableNotExist", err)
	}
	if err := c.DropTable(ctx, id, false); !errors.Is(err, ErrTableNotExist) {
		t.Errorf("DropTable missing = %v, want ErrTableNotExist", err)
	}
	if tables, err := c.ListTables(ctx, "db"); err != nil || len(tables) != 0 {
		t.Errorf("ListTables after drop = %v, %v", tables, err)
	}
}

func TestCreateTableErrors(t *testing.T) {
	ctx := context.Background()
	c, _ := memCatalog(t)
	if err := c.CreateTable(ctx, NewIdentifier("nodb", "t"), Schema{Fields: []types.DataField{{Name: "a", Type: types.Int()}}}, false); !errors.Is(err, ErrDatabaseNotExist) {
		t.Errorf("CreateTable in missing database = %v", err)
	}
	if err := c.CreateDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	ab := []types.DataField{{Name: "a", Type: types.Int()}, {Name: "b", Type: types.String()}}
	cases := []struct {
		name string
		s    Schema
		want error
	}{
		{"duplicate column", Schema{Fields: []types.DataField{{Name: "a", Type: types.Int()}, {Name: "a", Type: types.Int()}}}, ErrInvalidSchema},
		{"unknown pk", Schema{Fields: ab, PrimaryKeys: []string{"c"}}, ErrInvalidSchema},
		{"unknown partition", Schema{Fields: ab, PartitionKeys: []string{"c"}}, ErrInvalidSchema},
		{"pk twice", Schema{Fields: ab, PrimaryKeys: []string{"a"}, Options: map[string]string{"primary-key": "a"}}, ErrInvalidSchema},
		{"bucket-key with -1", Schema{Fields: ab, Options: map[string]string{"bucket-key": "a"}}, ErrInvalidSchema},
		{"bucketed append without key", Schema{Fields: ab, Options: map[string]string{"bucket": "4"}}, ErrInvalidSchema},
		{"bucket 0", Schema{Fields: ab, PrimaryKeys: []string{"a"}, Options: map[string]string{"bucket": "0"}}, ErrInvalidSchema},
		{"postpone append", Schema{Fields: ab, Options: map[string]string{"bucket": "-2"}}, ErrInvalidSchema},
		{"path option", Schema{Fields: ab, Options: map[string]string{"path": "/x"}}, ErrInvalidSchema},
		{"pk = partition", Schema{Fields: ab, PrimaryKeys: []string{"a"}, PartitionKeys: []string{"a"}}, schema.ErrInvalidSchema},
	}
	for _, tc := range cases {
		err := c.CreateTable(ctx, NewIdentifier("db", "t"), tc.s, false)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: CreateTable = %v, want %v", tc.name, err, tc.want)
		}
	}
	if ok, _ := c.TableExists(ctx, NewIdentifier("db", "t")); ok {
		t.Error("a rejected CreateTable left a table behind")
	}
	if err := c.CreateTable(ctx, NewIdentifier("db", "t$snapshots"), Schema{Fields: ab}, false); !errors.Is(err, ErrInvalidName) {
		t.Errorf("system table name = %v, want ErrInvalidName", err)
	}
	// postpone bucket is fine for primary-key tables.
	if err := c.CreateTable(ctx, NewIdentifier("db", "p"), Schema{Fields: ab, PrimaryKeys: []string{"a"}, Options: map[string]string{"bucket": "-2"}}, false); err != nil {
		t.Errorf("postpone PK table: %v", err)
	}
}

// TestCreateTableRace: of 8 concurrent creators exactly one wins, on a
// local directory where create-if-absent is a link(2).
func TestCreateTableRace(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateDatabase(ctx, "db", false); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.CreateTable(ctx, NewIdentifier("db", "t"), Schema{Fields: []types.DataField{{Name: "a", Type: types.Int()}}}, false)
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, ErrTableExist):
			t.Errorf("loser error %v, want ErrTableExist", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d creators won, want 1", wins)
	}
}

func TestParseIdentifier(t *testing.T) {
	id, err := ParseIdentifier("db.t.x")
	if err != nil || id != (Identifier{"db", "t.x"}) || id.String() != "db.t.x" {
		t.Errorf("ParseIdentifier = %v, %v", id, err)
	}
	if _, err := ParseIdentifier("db"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("ParseIdentifier(db) = %v", err)
	}
}
