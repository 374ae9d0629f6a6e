package faultmatrix_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/tag"
	"github.com/paimon-go/paimon/testenv"
)

// TestCreateIfAbsentCallersLostAnswerFailedCheck: the create-if-absent PUT
// of a tag, a schema or an offsets file is applied and answered 500, the
// retry gets 412, and the read-back that would tell ours from another
// writer's is denied. Each caller must report the unknown outcome
// (fileio.ErrOutcomeUnknown), not "already exists": a tag that is ours is
// not another's, and a schema id taken by ourselves is no lost race (the
// catalog would apply the change again on top of itself).
func TestCreateIfAbsentCallersLostAnswerFailedCheck(t *testing.T) {
	testenv.MinIO(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		key     string // substring of the created file's key
		create  func(tbl *catalog.Table) error
		existed error // the caller's own "already exists" sentinel
	}{{
		name: "tag",
		key:  "tag/tag-t1",
		create: func(tbl *catalog.Table) error {
			_, err := tag.Create(ctx, tbl.FileIO, tbl.Schema, "t1", 0, tag.CreateOptions{})
			return err
		},
		existed: tag.ErrExist,
	}, {
		name: "schema",
		key:  "schema/schema-1",
		create: func(tbl *catalog.Table) error {
			next := *tbl.Schema
			next.ID = 1
			next.Options = map[string]string{"bucket": "-1", "snapshot.num-retained.max": "7"}
			return schema.NewManager(tbl.FileIO, "").Commit(ctx, &next)
		},
		existed: fileio.ErrExist,
	}, {
		name: "offsets file",
		key:  "metadata/",
		create: func(tbl *catalog.Table) error {
			_, err := progress.Write(ctx, tbl.FileIO, "", progress.Offsets{})
			return err
		},
		existed: fileio.ErrExist,
	}} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			proxy, u := minio(t)
			tbl := newAppendTableWithRow(t, u)
			put := &testenv.Fault{Method: http.MethodPut, Key: tc.key, After: true, Status: 500, Times: 1}
			get := &testenv.Fault{Method: http.MethodGet, Key: tc.key, Status: 403, Times: 1, Armed: put}
			proxy.TakeLog()
			proxy.Inject(put, get)
			err := tc.create(tbl)
			proxy.Clear()
			if !errors.Is(err, fileio.ErrOutcomeUnknown) || errors.Is(err, tc.existed) || errors.Is(err, fileio.ErrExist) {
				t.Fatalf("create %s: %v, want fileio.ErrOutcomeUnknown and not %v", tc.name, err, tc.existed)
			}
			if put.Hits() != 1 || get.Hits() != 1 {
				t.Errorf("faults hit %d PUTs and %d GETs, want 1 and 1", put.Hits(), get.Hits())
			}
		})
	}
}

// newAppendTableWithRow creates the append table of the matrix in the
// warehouse at u with one committed row.
func newAppendTableWithRow(t *testing.T, u string) *catalog.Table {
	t.Helper()
	op := operations()[0]
	tbl := newTableAt(t, u, op.schema)
	op.setup(context.Background(), t, tbl)
	return tbl
}
