package merge

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/types"
)

// testFields is the row type used by the option tests:
// k INT NOT NULL (pk), ts BIGINT, s STRING, vs VARCHAR(10), n INT, b BOOLEAN,
// arr ARRAY<INT>, g1 INT, g2 INT, d DECIMAL(10,2).
func testFields() []types.DataField {
	f := func(id int, name string, dt types.DataType) types.DataField {
		return types.DataField{ID: id, Name: name, Type: dt}
	}
	return []types.DataField{
		f(0, "k", types.DataType{Kind: types.KindInt}),
		f(1, "ts", types.DataType{Kind: types.KindBigInt, Nullable: true}),
		f(2, "s", types.DataType{Kind: types.KindVarChar, Length: types.MaxLength, Nullable: true}),
		f(3, "vs", types.DataType{Kind: types.KindVarChar, Length: 10, Nullable: true}),
		f(4, "n", types.DataType{Kind: types.KindInt, Nullable: true}),
		f(5, "b", types.DataType{Kind: types.KindBoolean, Nullable: true}),
		f(6, "arr", types.DataType{Kind: types.KindArray, Nullable: true, Elem: &types.DataType{Kind: types.KindInt, Nullable: true}}),
		f(7, "g1", types.DataType{Kind: types.KindInt, Nullable: true}),
		f(8, "g2", types.DataType{Kind: types.KindInt, Nullable: true}),
		f(9, "d", types.DataType{Kind: types.KindDecimal, Precision: 10, Scale: 2, Nullable: true}),
	}
}

func TestNewConfigErrors(t *testing.T) {
	pu := map[string]string{"merge-engine": "partial-update"}
	agg := map[string]string{"merge-engine": "aggregation"}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name    string
		options map[string]string
		pk      []string
		want    error
		key     string // must appear in the message
	}{
		{"unknown engine", with(nil, "merge-engine", "dedup"), nil, ErrInvalidOption, "merge-engine"},
		{"bad boolean", with(nil, "ignore-delete", "yes"), nil, ErrInvalidOption, "ignore-delete"},
		{"bad legacy boolean", with(nil, "deduplicate.ignore-delete", "1"), nil, ErrInvalidOption, "deduplicate.ignore-delete"},
		{"unknown pk", nil, []string{"nope"}, ErrInvalidOption, "nope"},
		{"unknown sequence field", with(nil, "sequence.field", "ts,zz"), nil, ErrInvalidOption, "sequence.field"},
		{"repeated sequence field", with(nil, "sequence.field", "ts, ts"), nil, ErrInvalidOption, "repeatedly"},
		{"nested sequence field", with(nil, "sequence.field", "arr"), nil, ErrUnsupported, "sequence.field"},
		{"bad sort order", with(nil, "sequence.field.sort-order", "up"), nil, ErrInvalidOption, "sequence.field.sort-order"},
		{"aggregation on sequence field", with(agg, "sequence.field", "ts", "fields.ts.aggregate-function", "max"), nil, ErrInvalidOption, "fields.ts.aggregate-function"},
		{"first-row with sequence field", with(nil, "merge-engine", "first-row", "sequence.field", "ts"), nil, ErrInvalidOption, "sequence.field"},
		{"fields key of unknown field", with(nil, "fields.zz.aggregate-function", "sum"), nil, ErrInvalidOption, "fields.zz.aggregate-function"},
		{"sum on string", with(agg, "fields.s.aggregate-function", "sum"), nil, ErrInvalidOption, "fields.s.aggregate-function"},
		{"default sum on string", with(agg, "fields.default-aggregate-function", "sum"), nil, ErrInvalidOption, "fields.default-aggregate-function"},
		{"count is not a Paimon function", with(agg, "fields.n.aggregate-function", "count"), nil, ErrInvalidOption, "count"},
		{"misspelled function", with(agg, "fields.n.aggregate-function", "summ"), nil, ErrInvalidOption, "summ"},
		{"collect on int", with(agg, "fields.n.aggregate-function", "collect"), nil, ErrInvalidOption, "fields.n.aggregate-function"},
		{"hll_sketch on string", with(agg, "fields.s.aggregate-function", "hll_sketch"), nil, ErrInvalidOption, "hll_sketch"},
		{"merge_map on array", with(agg, "fields.arr.aggregate-function", "merge_map"), nil, ErrInvalidOption, "merge_map"},
		{"nested_update on array<int>", with(agg, "fields.arr.aggregate-function", "nested_update"), nil, ErrInvalidOption, "nested_update"},
		{"listagg on bounded varchar", with(agg, "fields.vs.aggregate-function", "listagg"), nil, ErrInvalidOption, "fields.vs.aggregate-function"},
		{"bool_and on int", with(agg, "fields.n.aggregate-function", "bool_and"), nil, ErrInvalidOption, "fields.n.aggregate-function"},
		{"max on array", with(agg, "fields.arr.aggregate-function", "max"), nil, ErrInvalidOption, "fields.arr.aggregate-function"},
		{"product on boolean", with(agg, "fields.b.aggregate-function", "product"), nil, ErrInvalidOption, "fields.b.aggregate-function"},
		{"bad ignore-retract", with(agg, "fields.n.ignore-retract", "sure"), nil, ErrInvalidOption, "fields.n.ignore-retract"},
		{"bad distinct", with(agg, "fields.s.aggregate-function", "listagg", "fields.s.distinct", "x"), nil, ErrInvalidOption, "fields.s.distinct"},
		{"bad aggregation.remove-record-on-delete", with(agg, "aggregation.remove-record-on-delete", "on"), nil, ErrInvalidOption, "aggregation.remove-record-on-delete"},
		{"remove-record-on-delete with ignore-retract", with(agg, "aggregation.remove-record-on-delete", "true", "fields.n.ignore-retract", "true"), nil, ErrInvalidOption, "fields.n.ignore-retract"},
		{"pu remove-on-delete with ignore-delete", with(pu, "partial-update.remove-record-on-delete", "true", "ignore-delete", "true"), nil, ErrInvalidOption, "partial-update.remove-record-on-delete"},
		{"pu bad remove-on-delete", with(pu, "partial-update.remove-record-on-delete", "t"), nil, ErrInvalidOption, "partial-update.remove-record-on-delete"},
		{"pu remove-on-sequence-group with ignore-delete", with(pu, "fields.g1.sequence-group", "n", "partial-update.remove-record-on-sequence-group", "g1", "ignore-delete", "true"), nil, ErrInvalidOption, "partial-update.remove-record-on-sequence-group"},
		{"pu remove-on-delete with sequence group", with(pu, "fields.g1.sequence-group", "n", "partial-update.remove-record-on-delete", "true"), nil, ErrInvalidOption, "sequence-group"},
		{"pu remove-on-sequence-group not a group", with(pu, "fields.g1.sequence-group", "n", "partial-update.remove-record-on-sequence-group", "n"), nil, ErrInvalidOption, "partial-update.remove-record-on-sequence-group"},
		{"pu group protects pk", with(pu, "fields.g1.sequence-group", "k,n"), []string{"k"}, ErrInvalidOption, "fields.g1.sequence-group"},
		{"pu group ordered by pk", with(pu, "fields.k.sequence-group", "n"), []string{"k"}, ErrInvalidOption, "fields.k.sequence-group"},
		{"pu field in two groups", with(pu, "fields.g1.sequence-group", "n", "fields.g2.sequence-group", "n"), nil, ErrInvalidOption, "repeatedly"},
		{"pu group with unknown field", with(pu, "fields.g1.sequence-group", "n,zz"), nil, ErrInvalidOption, "fields.g1.sequence-group"},
		{"pu group value not trimmed", with(pu, "fields.g1.sequence-group", "n, s"), nil, ErrInvalidOption, "fields.g1.sequence-group"},
		{"pu group ordered by array", with(pu, "fields.arr.sequence-group", "n"), nil, ErrInvalidOption, "fields.arr.sequence-group"},
		{"pu malformed group key", with(pu, "fieldsg1.sequence-group", "n"), nil, ErrInvalidOption, "fieldsg1.sequence-group"},
		{"pu aggregate without group", with(pu, "fields.n.aggregate-function", "sum"), nil, ErrInvalidOption, "fields.n.aggregate-function"},
		{"pu default aggregate without group", with(pu, "fields.default-aggregate-function", "max"), nil, ErrInvalidOption, "fields.default-aggregate-function"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pk := c.pk
			if pk == nil {
				pk = []string{"k"}
			}
			cfg, err := NewConfig(c.options, testFields(), pk)
			if !errors.Is(err, c.want) {
				t.Fatalf("got (%v, %v), want error %v", cfg, err, c.want)
			}
			if !strings.Contains(err.Error(), c.key) {
				t.Errorf("error %q does not name %q", err, c.key)
			}
		})
	}
}

func TestNewConfigValues(t *testing.T) {
	cfg, err := NewConfig(nil, testFields(), []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Engine() != Deduplicate || cfg.IgnoreDelete() || len(cfg.SequenceFields()) != 0 || cfg.SequenceDescending() {
		t.Errorf("defaults: %v %v %v %v", cfg.Engine(), cfg.IgnoreDelete(), cfg.SequenceFields(), cfg.SequenceDescending())
	}

	cfg, err = NewConfig(map[string]string{
		"merge-engine": "First-Row", "first-row.ignore-delete": "True",
	}, testFields(), []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Engine() != FirstRow || !cfg.IgnoreDelete() {
		t.Errorf("first-row: %v %v", cfg.Engine(), cfg.IgnoreDelete())
	}

	// The main key wins over legacy aliases.
	cfg, err = NewConfig(map[string]string{
		"ignore-delete": "false", "partial-update.ignore-delete": "true",
	}, testFields(), []string{"k"})
	if err != nil || cfg.IgnoreDelete() {
		t.Errorf("ignore-delete precedence: %v %v", cfg.IgnoreDelete(), err)
	}

	cfg, err = NewConfig(map[string]string{
		"sequence.field": " ts , n", "sequence.field.sort-order": "Descending",
	}, testFields(), []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.SequenceFields(), []string{"ts", "n"}) || !cfg.SequenceDescending() {
		t.Errorf("sequence: %v %v", cfg.SequenceFields(), cfg.SequenceDescending())
	}

	// Aggregation: sequence fields use last_value, the primary key primary-key,
	// unset fields the default, else last_non_null_value; the legacy
	// first_not_null_value is first_non_null_value.
	cfg, err = NewConfig(map[string]string{
		"merge-engine": "aggregation", "sequence.field": "ts",
		"fields.n.aggregate-function": "first_not_null_value", "fields.s.aggregate-function": "listagg",
		"fields.s.list-agg-delimiter": "|", "fields.s.distinct": "true", "fields.d.ignore-retract": "true",
	}, testFields(), []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]aggSpec{
		"k": {name: aggPrimaryKey, delimiter: ","}, "ts": {name: aggLastValue, delimiter: ","},
		"s": {name: aggListAgg, delimiter: "|", distinct: true}, "vs": {name: aggLastNonNullValue, delimiter: ","},
		"n": {name: aggFirstNonNullValue, delimiter: ","}, "d": {name: aggLastNonNullValue, delimiter: ",", ignoreRetract: true},
	}
	for i, f := range cfg.Fields() {
		got := cfg.aggs[i]
		got.typ, got.countLimit, got.nullStrategy = types.DataType{}, 0, ""
		if w, ok := want[f.Name]; ok && !reflect.DeepEqual(got, w) {
			t.Errorf("field %s: got %+v, want %+v", f.Name, cfg.aggs[i], w)
		}
	}

	// Partial update: last_non_null_value needs no sequence group; groups map
	// protected and ordering fields.
	cfg, err = NewConfig(map[string]string{
		"merge-engine": "partial-update", "fields.default-aggregate-function": "last_non_null_value",
		"fields.g1,g2.sequence-group": "n,s", "fields.n.aggregate-function": "sum",
		"partial-update.remove-record-on-sequence-group": "g2",
	}, testFields(), []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.groups) != 1 || !slices.Equal(cfg.groups[0].ordering, []int{7, 8}) {
		t.Errorf("groups: %+v", cfg.groups)
	}
	for name, g := range map[string]int{"n": 0, "s": 0, "g1": 0, "g2": 0, "ts": -1, "k": -1} {
		if got := cfg.groupOf[cfg.byName[name]]; got != g {
			t.Errorf("groupOf(%s) = %d, want %d", name, got, g)
		}
	}
	if cfg.aggs[cfg.byName["n"]].name != aggSum || cfg.aggs[cfg.byName["g1"]].name != "" ||
		cfg.aggs[cfg.byName["ts"]].name != aggLastNonNullValue || cfg.aggs[cfg.byName["k"]].name != aggPrimaryKey {
		t.Errorf("partial-update aggs: %+v", cfg.aggs)
	}
	if !slices.Equal(cfg.puRemoveOnSeqGrp, []int{8}) {
		t.Errorf("remove-record-on-sequence-group: %v", cfg.puRemoveOnSeqGrp)
	}
}
