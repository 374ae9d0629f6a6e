package predicate

import (
	"math/big"
	"slices"
	"testing"

	"github.com/paimon-go/paimon/types"
)

var (
	refA = Ref{Index: 0, Name: "a", Type: types.Int()}
	refS = Ref{Index: 1, Name: "s", Type: types.String()}
	refD = Ref{Index: 2, Name: "d", Type: types.DecimalOf(10, 2)}
)

func dec(u int64, s int) types.Decimal {
	return types.Decimal{Unscaled: big.NewInt(u), Precision: 10, Scale: s}
}

// Row evaluation with SQL three-valued logic collapsed to false.
func TestLeafTest(t *testing.T) {
	row := []any{int32(5), "abc", dec(1050, 2)}
	nullRow := []any{nil, nil, nil}
	cases := []struct {
		name      string
		p         Predicate
		row, null bool // result on row, on nullRow
	}{
		{"eq", Equal(refA, int32(5)), true, false},
		{"eq other", Equal(refA, int32(6)), false, false},
		{"eq int literal normalised", Equal(refA, 5), true, false},
		{"eq null literal", Equal(refA, nil), false, false},
		{"ne", NotEqual(refA, int32(6)), true, false},
		{"ne same", NotEqual(refA, int32(5)), false, false},
		{"ne null literal", NotEqual(refA, nil), false, false},
		{"lt", LessThan(refA, int32(6)), true, false},
		{"lt equal", LessThan(refA, int32(5)), false, false},
		{"le", LessOrEqual(refA, int32(5)), true, false},
		{"le below", LessOrEqual(refA, int32(4)), false, false},
		{"gt", GreaterThan(refA, int32(4)), true, false},
		{"gt equal", GreaterThan(refA, int32(5)), false, false},
		{"ge", GreaterOrEqual(refA, int32(5)), true, false},
		{"ge above", GreaterOrEqual(refA, int32(6)), false, false},
		{"in", In(refA, int32(1), int32(5)), true, false},
		{"in miss", In(refA, int32(1), int32(2)), false, false},
		{"in with null hit", In(refA, nil, int32(5)), true, false},
		{"in with null miss", In(refA, nil, int32(2)), false, false},
		{"not in", NotIn(refA, int32(1), int32(2)), true, false},
		{"not in hit", NotIn(refA, int32(5)), false, false},
		{"not in with null", NotIn(refA, int32(1), nil), false, false},
		{"is null", IsNull(refA), false, true},
		{"is not null", IsNotNull(refA), true, false},
		{"starts with", StartsWith(refS, "ab"), true, false},
		{"starts with empty", StartsWith(refS, ""), true, false},
		{"starts with miss", StartsWith(refS, "b"), false, false},
		{"string order", GreaterThan(refS, "abb"), true, false},
		{"decimal other scale", Equal(refD, types.Decimal{Unscaled: big.NewInt(105), Precision: 10, Scale: 1}), true, false},
		{"decimal lt", LessThan(refD, dec(1051, 2)), true, false},
	}
	for _, c := range cases {
		if got := c.p.Test(row); got != c.row {
			t.Errorf("%s: Test(row) = %v, want %v", c.name, got, c.row)
		}
		if got := c.p.Test(nullRow); got != c.null {
			t.Errorf("%s: Test(nullRow) = %v, want %v", c.name, got, c.null)
		}
	}
	// short rows read as NULL and never panic
	if Equal(refD, dec(1, 2)).Test([]any{int32(1)}) || !IsNull(refD).Test(nil) {
		t.Error("short row")
	}
}

// Kleene logic through AND/OR/NOT, e.g. NOT (a = 1) is UNKNOWN for a NULL a.
func TestCompoundThreeValued(t *testing.T) {
	null := []any{nil, "x"}
	five := []any{int32(5), "x"}
	cases := []struct {
		name       string
		p          Predicate
		null, five bool
	}{
		{"not eq", Not(Equal(refA, int32(1))), false, true},
		{"not is null", Not(IsNull(refA)), false, true},
		{"unknown or true", Or(Equal(refA, int32(1)), Equal(refS, "x")), true, true},
		{"unknown and true", And(Equal(refA, int32(5)), Equal(refS, "x")), false, true},
		{"not (unknown and false)", Not(And(Equal(refA, int32(5)), Equal(refS, "y"))), true, true},
		{"not (unknown and true)", Not(And(Equal(refA, int32(5)), Equal(refS, "x"))), false, false},
		{"not (unknown or false)", Not(Or(Equal(refA, int32(5)), Equal(refS, "y"))), false, false},
		{"not in null list", Not(In(refA, int32(1), nil)), false, false},
		{"not starts with", Not(StartsWith(refS, "y")), true, true},
		{"not not starts with", Not(Not(StartsWith(refS, "x"))), true, true},
		{"not lt", Not(LessThan(refA, int32(5))), false, true},
	}
	for _, c := range cases {
		if got := c.p.Test(null); got != c.null {
			t.Errorf("%s (%s): Test(null a) = %v, want %v", c.name, c.p, got, c.null)
		}
		if got := c.p.Test(five); got != c.five {
			t.Errorf("%s (%s): Test(a=5) = %v, want %v", c.name, c.p, got, c.five)
		}
	}
	// Not pushes negation to the leaves
	if got := Not(And(LessThan(refA, int32(1)), IsNull(refS))).String(); got != "`a` >= 1 OR `s` IS NOT NULL" {
		t.Errorf("negated = %s", got)
	}
	if _, ok := Not(StartsWith(refS, "y")).(*Negation); !ok {
		t.Error("NOT LIKE is not a *Negation")
	}
	if Not(Not(StartsWith(refS, "y"))).String() != "`s` LIKE 'y%'" {
		t.Error("double negation")
	}
}

func TestTestStats(t *testing.T) {
	// 10 rows, a in [3, 7] with 2 nulls; s in ["b", "d"], no nulls; d all null
	min := []any{int32(3), "b", nil}
	max := []any{int32(7), "d", nil}
	nulls := []int64{2, 0, 10}
	cases := []struct {
		name string
		p    Predicate
		want bool
	}{
		{"eq inside", Equal(refA, int32(5)), true},
		{"eq min", Equal(refA, int32(3)), true},
		{"eq max", Equal(refA, int32(7)), true},
		{"eq below", Equal(refA, int32(2)), false},
		{"eq above", Equal(refA, int32(8)), false},
		{"eq null literal", Equal(refA, nil), false},
		{"ne", NotEqual(refA, int32(3)), true},
		{"lt min", LessThan(refA, int32(3)), false},
		{"lt above min", LessThan(refA, int32(4)), true},
		{"le min", LessOrEqual(refA, int32(3)), true},
		{"le below", LessOrEqual(refA, int32(2)), false},
		{"gt max", GreaterThan(refA, int32(7)), false},
		{"gt below max", GreaterThan(refA, int32(6)), true},
		{"ge max", GreaterOrEqual(refA, int32(7)), true},
		{"ge above", GreaterOrEqual(refA, int32(8)), false},
		{"in one inside", In(refA, int32(1), int32(4)), true},
		{"in all outside", In(refA, int32(1), int32(9), nil), false},
		{"not in", NotIn(refA, int32(4)), true},
		{"not in null", NotIn(refA, int32(4), nil), false},
		{"is null", IsNull(refA), true},
		{"is null none", IsNull(refS), false},
		{"is not null", IsNotNull(refA), true},
		{"is not null all null", IsNotNull(refD), false},
		{"all-null column eq", Equal(refD, dec(1, 2)), false},
		{"all-null column ne", NotEqual(refD, dec(1, 2)), false},
		{"all-null column in", In(refD, dec(1, 2)), false},
		{"all-null column is null", IsNull(refD), true},
		{"starts with inside", StartsWith(refS, "c"), true},
		{"starts with min prefix", StartsWith(refS, "bz"), true},
		{"starts with max prefix", StartsWith(refS, "d"), true},
		{"starts with below", StartsWith(refS, "a"), false},
		{"starts with above", StartsWith(refS, "e"), false},
		{"and prunes", And(Equal(refA, int32(5)), Equal(refS, "z")), false},
		{"and keeps", And(Equal(refA, int32(5)), Equal(refS, "c")), true},
		{"or keeps", Or(Equal(refA, int32(9)), Equal(refS, "c")), true},
		{"or prunes", Or(Equal(refA, int32(9)), Equal(refS, "z")), false},
		{"negation never prunes", Not(StartsWith(refS, "c")), true},
	}
	for _, c := range cases {
		if got := c.p.TestStats(10, min, max, nulls); got != c.want {
			t.Errorf("%s (%s): TestStats = %v, want %v", c.name, c.p, got, c.want)
		}
	}
	// NotEqual prunes only when min = max = literal
	if NotEqual(refA, int32(4)).TestStats(3, []any{int32(4)}, []any{int32(4)}, []int64{0}) {
		t.Error("ne on constant column")
	}
	// ...but not when there are also nulls? nulls never satisfy <> either
	if NotEqual(refA, int32(4)).TestStats(3, []any{int32(4)}, []any{int32(4)}, []int64{1}) {
		t.Error("ne on constant column with nulls")
	}
	// missing statistics never prune
	unknown := []struct {
		name     string
		min, max []any
		nulls    []int64
		rowCount int64
	}{
		{"nil slices", nil, nil, nil, 10},
		{"nil min/max, unknown nulls", []any{nil}, []any{nil}, []int64{-1}, 10},
		{"nil min only", []any{nil}, []any{int32(1)}, []int64{-1}, 10},
		{"short slices", []any{}, []any{}, []int64{}, 10},
	}
	for _, u := range unknown {
		for _, p := range []Predicate{Equal(refA, int32(100)), LessThan(refA, int32(-100)), In(refA, int32(100)),
			NotIn(refA, int32(1)), IsNull(refA), IsNotNull(refA), GreaterThan(refA, int32(100))} {
			if !p.TestStats(u.rowCount, u.min, u.max, u.nulls) {
				t.Errorf("%s: %s pruned with unknown stats", u.name, p)
			}
		}
	}
	// a known null count of 0 and a missing min: comparisons are unknown
	if !Equal(refA, int32(100)).TestStats(10, []any{nil}, []any{int32(1)}, []int64{0}) {
		t.Error("eq with missing min")
	}
	// a known null count of 0 with missing min/max: IS NULL prunes, comparisons don't
	if IsNull(refA).TestStats(5, nil, nil, []int64{0}) {
		t.Error("IS NULL with zero nulls")
	}
	// empty file (0 rows): everything is "all null"
	if Equal(refA, int32(1)).TestStats(0, nil, nil, []int64{0}) {
		t.Error("eq on empty stats")
	}
}

func TestFieldsRemapPick(t *testing.T) {
	refB := Ref{Index: 4, Name: "b", Type: types.BigInt()}
	p := And(Equal(refS, "x"), Or(LessThan(refA, int32(3)), IsNull(refB)), Not(StartsWith(refS, "q")))
	if got := p.Fields(); !slices.Equal(got, []int{0, 1, 4}) {
		t.Fatalf("Fields = %v", got)
	}
	// partition-style mapping: s -> 0, a -> 1, b unknown
	m := func(i int) (int, bool) {
		switch i {
		case 1:
			return 0, true
		case 0:
			return 1, true
		}
		return 0, false
	}
	if _, ok := p.Remap(m); ok {
		t.Error("Remap succeeded with an unmapped field")
	}
	picked, ok := p.Pick(m)
	if !ok {
		t.Fatal("Pick failed")
	}
	if got := picked.String(); got != "`s` = 'x' AND NOT (`s` LIKE 'q%')" {
		t.Errorf("picked = %s", got)
	}
	if got := picked.Fields(); !slices.Equal(got, []int{0}) {
		t.Errorf("picked fields = %v", got)
	}
	if !picked.Test([]any{"x"}) || picked.Test([]any{"y"}) {
		t.Error("picked evaluation")
	}
	// full remap
	all := func(i int) (int, bool) { return i + 10, true }
	r, ok := p.Remap(all)
	if !ok || !slices.Equal(r.Fields(), []int{10, 11, 14}) {
		t.Errorf("Remap = %v %v", r, ok)
	}
	// the original is unchanged
	if !slices.Equal(p.Fields(), []int{0, 1, 4}) {
		t.Error("Remap modified the original")
	}
	// OR with an unmapped branch cannot be picked
	if _, ok := Or(Equal(refS, "x"), IsNull(refB)).Pick(m); ok {
		t.Error("picked an OR with an unmapped child")
	}
	// nothing left
	if _, ok := IsNull(refB).Pick(m); ok {
		t.Error("picked an unmapped leaf")
	}
	if got := Conjuncts(p); len(got) != 3 {
		t.Errorf("Conjuncts = %d", len(got))
	}
	if got := Leaves(p); len(got) != 4 || got[3].Op != OpStartsWith {
		t.Errorf("Leaves = %v", got)
	}
	if And() != nil || Or(nil) != nil || Not(nil) != nil {
		t.Error("empty compounds")
	}
	if And(IsNull(refA)).String() != "`a` IS NULL" {
		t.Error("single-child And")
	}
}
