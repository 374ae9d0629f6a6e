package writer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/tabletest"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// TestNilBatch: a nil batch is ErrSchemaMismatch from Write and Route, not a
// panic.
func TestNilBatch(t *testing.T) {
	tbl := tabletest.NewTable(t, "", catalog.Schema{
		Fields:      []types.DataField{types.Field(0, "k", types.BigInt().NotNull())},
		PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"},
	})
	w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(context.Background(), nil); !errors.Is(err, writer.ErrSchemaMismatch) {
		t.Fatalf("Write(nil) = %v, want ErrSchemaMismatch", err)
	}
	if _, err := w.Route(context.Background(), nil, true); !errors.Is(err, writer.ErrSchemaMismatch) {
		t.Fatalf("Route(nil) = %v, want ErrSchemaMismatch", err)
	}
}
