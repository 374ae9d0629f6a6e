package reader

import (
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-go/paimon/merge"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// castRowIDField is the hidden value column of a lazy merge read: each
// file row's id (castPoison), carried through the merge like any value
// column, so the merged row tells which file row it came from.
var castRowIDField = types.DataField{ID: rowIDFieldID, Name: "_CAST_ROW_ID", Type: types.BigInt()}

// castPoison holds, during a merge read, the values of old files that
// cannot be cast, by row id (file ordinal << 40 + file position) and
// column. Java's deduplicate and first-row merges keep a reference to the
// winning row and read its fields only when the row is returned
// (CastedRow), so a value of a superseded row is never cast; such values
// are read as null and fail the read only when a returned row holds one in
// a column that is filtered on or returned.
type castPoison struct {
	mu   sync.Mutex
	errs map[int64]map[string]error
}

// lazyMerge reports whether a merge read of a table with these options
// reads only the winning rows' fields in Java: the deduplicate and
// first-row engines without sequence.field (whose values Java compares for
// every row).
func lazyMerge(ts *schema.TableSchema) bool {
	if _, ok := ts.Options[merge.KeySequenceField]; ok {
		return false
	}
	e := strings.ToLower(ts.Options[merge.KeyMergeEngine])
	return e == "" || e == string(merge.Deduplicate) || e == string(merge.FirstRow)
}

// oldSchemas reports whether a file of sp was written with another schema
// than ts (only such files can need casts).
func oldSchemas(sp *Split, ts *schema.TableSchema) bool {
	for i := range sp.Files {
		if sp.Files[i].SchemaID != ts.ID {
			return true
		}
	}
	return false
}

func (cp *castPoison) add(id int64, column string, err error) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.errs == nil {
		cp.errs = map[int64]map[string]error{}
	}
	if cp.errs[id] == nil {
		cp.errs[id] = map[string]error{}
	}
	cp.errs[id][column] = err
}

// check returns the error of the first row of rec (whose row ids are in
// column idCol) that holds a value that could not be cast in one of the
// columns names, or nil.
func (cp *castPoison) check(rec arrow.RecordBatch, idCol int, names []string) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if len(cp.errs) == 0 || len(names) == 0 {
		return nil
	}
	ids, ok := rec.Column(idCol).(*array.Int64)
	if !ok {
		return nil
	}
	for r := 0; r < ids.Len(); r++ {
		if ids.IsNull(r) {
			continue
		}
		if m := cp.errs[ids.Value(r)]; m != nil {
			for _, n := range names {
				if err := m[n]; err != nil {
					return err
				}
			}
		}
	}
	return nil
}
