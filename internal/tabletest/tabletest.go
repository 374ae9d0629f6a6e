// Package tabletest is the test support for code that writes and reads whole
// Paimon tables: it creates a table in a temporary warehouse, builds Arrow
// record batches from Go values, writes and commits them through the real
// writer and committer, and reads the table back through the real reader as
// sorted text rows that tests compare with exact expectations.
//
// A typical test:
//
//	tbl := tabletest.NewTable(t, "", catalog.Schema{Fields: fields, PrimaryKeys: []string{"k"}})
//	rec := tabletest.Batch(t, types.SchemaToArrow(tbl.Schema.Fields), []any{int64(1), "a"}, []any{int64(2), nil})
//	defer rec.Release()
//	tabletest.WriteCommit(t, tbl, "user", commit.BatchIdentifier, rec)
//	got := tabletest.ReadJSONL(t, tbl.FileIO.URL()) // sorted `paimon cat --format jsonl` lines
//
// Functions taking a testing.TB stop the test with t.Fatal on any error. The
// ones without (NewBatch, Commit, Cat, FormatJSONL) take a context where they
// do I/O and return wrapped errors instead, for tests that report failures
// their own way (the interop matrix records a failed writer as a result cell)
// and for benchmark setup that runs outside a testing.TB.
//
// The package imports catalog, writer, commit, reader and the root package,
// so only test files of external test packages (package foo_test) and of
// packages none of those import may use it; an internal test file of commit,
// writer, reader or catalog cannot.
package tabletest

import (
	"context"
	"errors"
	"testing"

	"github.com/paimon-go/paimon/catalog"
)

// ErrValue is wrapped by NewBatch (and so by Batch, FormatJSONL and JSONL)
// when a row has the wrong number of values, a value is not of the Go type
// its column takes, or a column's Arrow type has no Go value convention here.
var ErrValue = errors.New("tabletest: value does not fit its column")

// Database and Table name the table NewTable creates: "db.t", stored under
// <warehouse>/db.db/t.
const (
	Database = "db"
	Table    = "t"
)

// NewTable creates database Database (if absent) and table Database.Table
// with schema s in the filesystem catalog at warehouse URL whURL (file://,
// s3://, gs://, ...; a new t.TempDir() when whURL is "") and returns the
// table as the catalog reads it back (field ids assigned, schema 0). The
// catalog is closed when the test ends. A table of that name must not exist
// yet.
func NewTable(t testing.TB, whURL string, s catalog.Schema) *catalog.Table {
	t.Helper()
	ctx := context.Background()
	if whURL == "" {
		whURL = "file://" + t.TempDir()
	}
	c, err := catalog.Open(ctx, whURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.CreateDatabase(ctx, Database, true); err != nil {
		t.Fatal(err)
	}
	id := catalog.NewIdentifier(Database, Table)
	if err := c.CreateTable(ctx, id, s, false); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.GetTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
