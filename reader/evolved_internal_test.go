package reader

import (
	"reflect"
	"testing"

	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// TestFileTargetEvolve checks that a target keeps evolve's result per file
// schema: the same value for the same schema, evolve's own slots, casts
// and fields for each, the Arrow schemas of both sides, and no more than
// maxEvolved schemas kept.
func TestFileTargetEvolve(t *testing.T) {
	target := []types.DataField{types.Field(0, "id", types.BigInt()), types.Field(1, "name", types.String()), types.Field(2, "added", types.Int())}
	tg := &fileTarget{fields: target, schema: types.SchemaToArrow(target)}
	v0 := &schema.TableSchema{ID: 0, Fields: []types.DataField{types.Field(0, "id", types.Int()), types.Field(1, "old_name", types.String())}}
	v1 := &schema.TableSchema{ID: 1, Fields: target}

	e0 := tg.evolve(v0)
	if tg.evolve(v0) != e0 {
		t.Fatal("second evolve of the same schema built a new result")
	}
	want, slot, from := evolve(target, v0, nil)
	if !reflect.DeepEqual(e0.want, want) || !reflect.DeepEqual(e0.slot, slot) || !reflect.DeepEqual(e0.from, from) {
		t.Fatalf("evolve(v0) = %v %v %v, want %v %v %v", e0.want, e0.slot, e0.from, want, slot, from)
	}
	if got := []int{e0.slot[0], e0.slot[1], e0.slot[2]}; !reflect.DeepEqual(got, []int{0, 1, -1}) {
		t.Fatalf("slots %v, want [0 1 -1] (the added column is not in v0's files)", got)
	}
	if e0.want[1].Name != "old_name" || e0.from[0] == nil || e0.from[1] != nil {
		t.Fatalf("v0 reads %q and casts id from %v, name from %v; want old_name, INT and no cast", e0.want[1].Name, e0.from[0], e0.from[1])
	}
	if !e0.wantSchema.Equal(types.SchemaToArrow(want)) || e0.targetSchema != tg.schema {
		t.Fatalf("schemas: want %v, target %v", e0.wantSchema, e0.targetSchema)
	}
	e1 := tg.evolve(v1)
	if e1 == e0 || !reflect.DeepEqual(e1.slot, []int{0, 1, 2}) || e1.from[0] != nil {
		t.Fatalf("evolve(v1) slots %v casts %v, want its own [0 1 2] and none", e1.slot, e1.from)
	}
	for i := range maxEvolved + 4 {
		tg.evolve(&schema.TableSchema{ID: int64(10 + i), Fields: target})
	}
	if len(tg.evolved) != maxEvolved || tg.evolve(v0) != e0 {
		t.Fatalf("kept %d results (want %d), v0's kept: %v", len(tg.evolved), maxEvolved, tg.evolve(v0) == e0)
	}
}
