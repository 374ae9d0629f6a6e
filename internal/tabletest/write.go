package tabletest

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/writer"
)

// write writes recs into tbl with a new writer.Write of commitUser, as one
// batch job would, and returns its commit messages (Java
// TableWriteImpl.prepareCommit). The Write is closed before returning.
func write(ctx context.Context, tbl *catalog.Table, commitUser string, recs []arrow.RecordBatch) ([]commit.Message, error) {
	w, err := writer.New(tbl.FileIO, tbl.Schema, commitUser)
	if err != nil {
		return nil, fmt.Errorf("tabletest: writer for %s: %w", tbl.Identifier, err)
	}
	defer w.Close()
	for _, r := range recs {
		if err := w.Write(ctx, r); err != nil {
			return nil, fmt.Errorf("tabletest: write %s: %w", tbl.Identifier, err)
		}
	}
	msgs, err := w.PrepareCommit(ctx)
	if err != nil {
		return nil, fmt.Errorf("tabletest: prepare commit of %s: %w", tbl.Identifier, err)
	}
	return msgs, nil
}

// Commit writes recs (batches of the table's columns, plus any input columns
// such as writer.DefaultRowKindColumn) into tbl with a new writer.Write of
// commitUser and commits the messages as identifier with a new
// commit.Committer (closed before returning, so its LATEST hint is written).
// It returns the id of the snapshot the commit created, or of the one an
// earlier commit of the same user and identifier created (commit.Committer
// is idempotent). recs stay owned by the caller.
//
// Errors are those of writer.New, Write.Write, Write.PrepareCommit,
// commit.New and Committer.Commit, wrapped with the step and table.
func Commit(ctx context.Context, tbl *catalog.Table, commitUser string, identifier int64, recs ...arrow.RecordBatch) (int64, error) {
	msgs, err := write(ctx, tbl, commitUser, recs)
	if err != nil {
		return 0, err
	}
	c, err := commit.New(tbl.FileIO, tbl.Schema, commitUser)
	if err != nil {
		return 0, fmt.Errorf("tabletest: committer for %s: %w", tbl.Identifier, err)
	}
	defer c.Close()
	id, err := c.Commit(ctx, identifier, msgs)
	if err != nil {
		return 0, fmt.Errorf("tabletest: commit %d to %s: %w", identifier, tbl.Identifier, err)
	}
	return id, nil
}

// WriteCommit is Commit that stops the test on an error; it returns the
// snapshot id.
func WriteCommit(t testing.TB, tbl *catalog.Table, commitUser string, identifier int64, recs ...arrow.RecordBatch) int64 {
	t.Helper()
	id, err := Commit(context.Background(), tbl, commitUser, identifier, recs...)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Prepare writes recs into tbl with a new writer.Write of commitUser and
// returns the commit messages without committing them, for tests that drive
// a commit.Committer themselves. recs stay owned by the caller; the test
// stops on an error.
func Prepare(t testing.TB, tbl *catalog.Table, commitUser string, recs ...arrow.RecordBatch) []commit.Message {
	t.Helper()
	msgs, err := write(context.Background(), tbl, commitUser, recs)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}
