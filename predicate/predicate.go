// Package predicate implements row filters: evaluation on rows of Go values,
// "might match" evaluation on min/max/null-count statistics (file, manifest
// and partition statistics), field remapping, and a small parser for
// SQL-like filter expressions.
//
// It mirrors apache/paimon: paimon-common/src/main/java/org/apache/paimon/
// predicate/ (LeafPredicate, CompoundPredicate, Equal, NotEqual, LessThan,
// LessOrEqual, GreaterThan, GreaterOrEqual, In, NotIn, IsNull, IsNotNull,
// StartsWith, And, Or, PredicateBuilder).
//
// Values use the Go representation of package types (INT int32, STRING
// string, DECIMAL types.Decimal, ...; nil is NULL) and are ordered with
// types.Compare.
//
// # Semantics
//
// Test follows SQL three-valued logic and collapses UNKNOWN to false: any
// comparison with NULL (a NULL field or a NULL literal) is UNKNOWN, NOT
// UNKNOWN is UNKNOWN, FALSE AND UNKNOWN is FALSE, TRUE OR UNKNOWN is TRUE.
//
// TestStats answers "might a row in this file/partition match?" and never
// returns false when a row could match. Missing statistics (a nil min or
// max, a slice too short, a null count of -1) count as unknown and make the
// leaf return true, except that a column known to be all NULL (null count =
// row count) cannot satisfy a comparison.
package predicate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paimon-go/paimon/types"
)

// Ref addresses one field of the rows a predicate is evaluated on: its
// position in the row, and its name and type (Java FieldRef).
type Ref struct {
	Index int
	Name  string
	Type  types.DataType
}

// RefOf returns the Ref of the field named name in fields; ok is false when
// there is none.
func RefOf(fields []types.DataField, name string) (Ref, bool) {
	i, f, ok := types.FieldByName(fields, name)
	if !ok {
		return Ref{}, false
	}
	return Ref{Index: i, Name: f.Name, Type: f.Type}, true
}

// Op is the operator of a leaf predicate.
type Op int

// Leaf operators.
const (
	OpEqual Op = iota
	OpNotEqual
	OpLessThan
	OpLessOrEqual
	OpGreaterThan
	OpGreaterOrEqual
	OpIn
	OpNotIn
	OpIsNull
	OpIsNotNull
	OpStartsWith
)

var opNames = [...]string{"=", "<>", "<", "<=", ">", ">=", "IN", "NOT IN", "IS NULL", "IS NOT NULL", "STARTS WITH"}

// String returns the SQL spelling of the operator.
func (o Op) String() string {
	if int(o) >= 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Predicate is a filter over rows. Implementations are *Leaf, *Compound and
// *Negation; values are immutable once built.
type Predicate interface {
	// Test evaluates the predicate on a row of Go values (index = Ref.Index).
	// Fields beyond the end of row read as NULL. UNKNOWN counts as false.
	Test(row []any) bool
	// TestStats reports whether a row with the given per-field statistics
	// might match: rowCount rows, min/max values per field (nil = unknown),
	// nullCounts per field (-1 = unknown). Slices are indexed like rows and
	// may be nil or short (unknown). It never returns false when a row could
	// match.
	TestStats(rowCount int64, min, max []any, nullCounts []int64) bool
	// Fields returns the distinct field indexes used, ascending.
	Fields() []int
	// Remap rewrites every field index with f. ok is false (and the
	// predicate unusable) if f rejects any referenced field.
	Remap(f func(index int) (int, bool)) (Predicate, bool)
	// Pick is like Remap but drops the conjuncts of an AND whose fields f
	// rejects, giving a weaker predicate that is still safe for pruning
	// (e.g. keeping only the partition-key part of a filter). ok is false
	// when nothing usable remains.
	Pick(f func(index int) (int, bool)) (Predicate, bool)
	// String renders the predicate in the syntax Parse accepts.
	String() string

	eval(row []any) tri
	negate() Predicate
	collect(set map[int]bool)
}

// tri is a three-valued logic value.
type tri int8

const (
	triFalse tri = iota
	triTrue
	triUnknown
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

// Leaf is a predicate on one field (Java LeafPredicate).
type Leaf struct {
	Op  Op
	Ref Ref
	// Literals holds one literal for comparisons and StartsWith, the list for
	// In/NotIn, none for IsNull/IsNotNull. A nil literal is SQL NULL.
	Literals []any
}

func leaf(op Op, ref Ref, lits ...any) *Leaf {
	norm := make([]any, len(lits))
	for i, l := range lits {
		norm[i] = normalize(ref.Type, l)
	}
	return &Leaf{Op: op, Ref: ref, Literals: norm}
}

// Equal is "field = literal".
func Equal(ref Ref, literal any) Predicate { return leaf(OpEqual, ref, literal) }

// NotEqual is "field <> literal".
func NotEqual(ref Ref, literal any) Predicate { return leaf(OpNotEqual, ref, literal) }

// LessThan is "field < literal".
func LessThan(ref Ref, literal any) Predicate { return leaf(OpLessThan, ref, literal) }

// LessOrEqual is "field <= literal".
func LessOrEqual(ref Ref, literal any) Predicate { return leaf(OpLessOrEqual, ref, literal) }

// GreaterThan is "field > literal".
func GreaterThan(ref Ref, literal any) Predicate { return leaf(OpGreaterThan, ref, literal) }

// GreaterOrEqual is "field >= literal".
func GreaterOrEqual(ref Ref, literal any) Predicate { return leaf(OpGreaterOrEqual, ref, literal) }

// In is "field IN (literals...)". A NULL literal never matches.
func In(ref Ref, literals ...any) Predicate { return leaf(OpIn, ref, literals...) }

// NotIn is "field NOT IN (literals...)". With a NULL literal nothing matches.
func NotIn(ref Ref, literals ...any) Predicate { return leaf(OpNotIn, ref, literals...) }

// IsNull is "field IS NULL".
func IsNull(ref Ref) Predicate { return leaf(OpIsNull, ref) }

// IsNotNull is "field IS NOT NULL".
func IsNotNull(ref Ref) Predicate { return leaf(OpIsNotNull, ref) }

// StartsWith is "field LIKE 'prefix%'" for CHAR/VARCHAR fields (byte-wise
// prefix of the UTF-8 string).
func StartsWith(ref Ref, prefix string) Predicate { return leaf(OpStartsWith, ref, prefix) }

// normalize converts integer and float literals to the Go type of the
// field's kind when the value fits, so In/Equal literals built from Go
// constants (int, float64) compare exactly.
func normalize(t types.DataType, v any) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt, types.KindDate, types.KindTime:
		n, ok := types.AsInt64(v)
		if !ok {
			return v
		}
		switch t.Kind {
		case types.KindTinyInt:
			if n >= -128 && n <= 127 {
				return int8(n)
			}
		case types.KindSmallInt:
			if n >= -32768 && n <= 32767 {
				return int16(n)
			}
		case types.KindBigInt:
			return n
		default:
			if n >= -1<<31 && n <= 1<<31-1 {
				return int32(n)
			}
		}
	case types.KindFloat, types.KindDouble:
		if f, ok := types.AsFloat64(v); ok {
			if t.Kind == types.KindFloat {
				return float32(f)
			}
			return f
		}
		if n, ok := types.AsInt64(v); ok {
			if t.Kind == types.KindFloat {
				return float32(n)
			}
			return float64(n)
		}
	}
	return v
}

func (l *Leaf) value(row []any) any {
	if l.Ref.Index < 0 || l.Ref.Index >= len(row) {
		return nil
	}
	return row[l.Ref.Index]
}

func (l *Leaf) literal() any {
	if len(l.Literals) == 0 {
		return nil
	}
	return l.Literals[0]
}

func (l *Leaf) eval(row []any) tri {
	v := l.value(row)
	switch l.Op {
	case OpIsNull:
		return triOf(v == nil)
	case OpIsNotNull:
		return triOf(v != nil)
	case OpIn, OpNotIn:
		if v == nil {
			return triUnknown
		}
		sawNull := false
		for _, lit := range l.Literals {
			if lit == nil {
				sawNull = true
				continue
			}
			if types.Compare(l.Ref.Type, v, lit) == 0 {
				return triOf(l.Op == OpIn)
			}
		}
		if sawNull {
			return triUnknown
		}
		return triOf(l.Op == OpNotIn)
	}
	lit := l.literal()
	if v == nil || lit == nil {
		return triUnknown
	}
	if l.Op == OpStartsWith {
		s, ok1 := v.(string)
		p, ok2 := lit.(string)
		return triOf(ok1 && ok2 && strings.HasPrefix(s, p))
	}
	return triOf(cmpHolds(l.Op, types.Compare(l.Ref.Type, v, lit)))
}

// cmpHolds reports whether "value op literal" holds given c = compare(value, literal).
func cmpHolds(op Op, c int) bool {
	switch op {
	case OpEqual:
		return c == 0
	case OpNotEqual:
		return c != 0
	case OpLessThan:
		return c < 0
	case OpLessOrEqual:
		return c <= 0
	case OpGreaterThan:
		return c > 0
	case OpGreaterOrEqual:
		return c >= 0
	}
	return false
}

// Test implements Predicate.
func (l *Leaf) Test(row []any) bool { return l.eval(row) == triTrue }

func at[T any](xs []T, i int) (T, bool) {
	var zero T
	if i < 0 || i >= len(xs) {
		return zero, false
	}
	return xs[i], true
}

// TestStats implements Predicate, following Java LeafPredicate.test(rowCount,
// min, max, nullCounts) and each function's stats test.
func (l *Leaf) TestStats(rowCount int64, min, max []any, nullCounts []int64) bool {
	nullCount, ok := at(nullCounts, l.Ref.Index)
	if !ok || nullCount < 0 {
		nullCount = -1
	}
	switch l.Op {
	case OpIsNull:
		return nullCount < 0 || nullCount > 0
	case OpIsNotNull:
		return nullCount < 0 || nullCount < rowCount
	}
	if nullCount >= 0 && nullCount == rowCount {
		return false // every value is NULL: no comparison can hold
	}
	lo, _ := at(min, l.Ref.Index)
	hi, _ := at(max, l.Ref.Index)
	if lo == nil || hi == nil {
		return true
	}
	t := l.Ref.Type
	switch l.Op {
	case OpIn:
		for _, lit := range l.Literals {
			if lit != nil && types.Compare(t, lit, lo) >= 0 && types.Compare(t, lit, hi) <= 0 {
				return true
			}
		}
		return false
	case OpNotIn:
		for _, lit := range l.Literals {
			if lit == nil || types.Compare(t, lit, lo) == 0 && types.Compare(t, lit, hi) == 0 {
				return false
			}
		}
		return true
	}
	lit := l.literal()
	if lit == nil {
		return false // comparison with NULL is never true
	}
	switch l.Op {
	case OpEqual:
		return types.Compare(t, lit, lo) >= 0 && types.Compare(t, lit, hi) <= 0
	case OpNotEqual:
		return types.Compare(t, lit, lo) != 0 || types.Compare(t, lit, hi) != 0
	case OpLessThan:
		return types.Compare(t, lo, lit) < 0
	case OpLessOrEqual:
		return types.Compare(t, lo, lit) <= 0
	case OpGreaterThan:
		return types.Compare(t, hi, lit) > 0
	case OpGreaterOrEqual:
		return types.Compare(t, hi, lit) >= 0
	case OpStartsWith:
		p, ok1 := lit.(string)
		los, ok2 := lo.(string)
		his, ok3 := hi.(string)
		if !ok1 || !ok2 || !ok3 {
			return true
		}
		// some string in [lo, hi] has prefix p
		return (strings.HasPrefix(los, p) || los <= p) && (strings.HasPrefix(his, p) || his >= p)
	}
	return true
}

// Fields implements Predicate.
func (l *Leaf) Fields() []int { return []int{l.Ref.Index} }

func (l *Leaf) collect(set map[int]bool) { set[l.Ref.Index] = true }

// Remap implements Predicate.
func (l *Leaf) Remap(f func(int) (int, bool)) (Predicate, bool) {
	i, ok := f(l.Ref.Index)
	if !ok {
		return nil, false
	}
	c := *l
	c.Ref.Index = i
	return &c, true
}

// Pick implements Predicate; for a leaf it is Remap.
func (l *Leaf) Pick(f func(int) (int, bool)) (Predicate, bool) { return l.Remap(f) }

func (l *Leaf) negate() Predicate {
	c := *l
	switch l.Op {
	case OpEqual:
		c.Op = OpNotEqual
	case OpNotEqual:
		c.Op = OpEqual
	case OpLessThan:
		c.Op = OpGreaterOrEqual
	case OpGreaterOrEqual:
		c.Op = OpLessThan
	case OpLessOrEqual:
		c.Op = OpGreaterThan
	case OpGreaterThan:
		c.Op = OpLessOrEqual
	case OpIn:
		c.Op = OpNotIn
	case OpNotIn:
		c.Op = OpIn
	case OpIsNull:
		c.Op = OpIsNotNull
	case OpIsNotNull:
		c.Op = OpIsNull
	default:
		return nil
	}
	return &c
}

// String implements Predicate, e.g. "`a` = 1", "`s` IN ('x', 'y')".
func (l *Leaf) String() string {
	var b strings.Builder
	b.WriteString(quoteIdent(l.Ref.Name, l.Ref.Index))
	switch l.Op {
	case OpIsNull, OpIsNotNull:
		b.WriteString(" " + l.Op.String())
	case OpIn, OpNotIn:
		b.WriteString(" " + l.Op.String() + " (")
		for i, lit := range l.Literals {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(FormatLiteral(l.Ref.Type, lit))
		}
		b.WriteByte(')')
	case OpStartsWith:
		p, _ := l.literal().(string)
		b.WriteString(" LIKE " + quoteString(p+"%"))
	default:
		b.WriteString(" " + l.Op.String() + " " + FormatLiteral(l.Ref.Type, l.literal()))
	}
	return b.String()
}

func quoteIdent(name string, index int) string {
	if name == "" {
		name = fmt.Sprintf("$%d", index)
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// Compound is an AND or OR of children (Java CompoundPredicate).
type Compound struct {
	And      bool // false: OR
	Children []Predicate
}

// And returns the conjunction of ps, flattening nested ANDs. With one
// argument it returns it; with none it returns nil.
func And(ps ...Predicate) Predicate { return compound(true, ps) }

// Or returns the disjunction of ps, flattening nested ORs. With one argument
// it returns it; with none it returns nil.
func Or(ps ...Predicate) Predicate { return compound(false, ps) }

func compound(and bool, ps []Predicate) Predicate {
	var children []Predicate
	for _, p := range ps {
		if p == nil {
			continue
		}
		if c, ok := p.(*Compound); ok && c.And == and {
			children = append(children, c.Children...)
		} else {
			children = append(children, p)
		}
	}
	switch len(children) {
	case 0:
		return nil
	case 1:
		return children[0]
	}
	return &Compound{And: and, Children: children}
}

func (c *Compound) eval(row []any) tri {
	result := triOf(c.And)
	for _, ch := range c.Children {
		v := ch.eval(row)
		if c.And {
			if v == triFalse {
				return triFalse
			}
		} else if v == triTrue {
			return triTrue
		}
		if v == triUnknown {
			result = triUnknown
		}
	}
	return result
}

// Test implements Predicate.
func (c *Compound) Test(row []any) bool { return c.eval(row) == triTrue }

// TestStats implements Predicate.
func (c *Compound) TestStats(rowCount int64, min, max []any, nullCounts []int64) bool {
	for _, ch := range c.Children {
		m := ch.TestStats(rowCount, min, max, nullCounts)
		if c.And && !m {
			return false
		}
		if !c.And && m {
			return true
		}
	}
	return c.And
}

// Fields implements Predicate.
func (c *Compound) Fields() []int { return fieldsOf(c) }

func (c *Compound) collect(set map[int]bool) {
	for _, ch := range c.Children {
		ch.collect(set)
	}
}

// Remap implements Predicate.
func (c *Compound) Remap(f func(int) (int, bool)) (Predicate, bool) {
	out := make([]Predicate, len(c.Children))
	for i, ch := range c.Children {
		r, ok := ch.Remap(f)
		if !ok {
			return nil, false
		}
		out[i] = r
	}
	return &Compound{And: c.And, Children: out}, true
}

// Pick implements Predicate: AND keeps the children that can be picked, OR
// needs all of them.
func (c *Compound) Pick(f func(int) (int, bool)) (Predicate, bool) {
	var out []Predicate
	for _, ch := range c.Children {
		r, ok := ch.Pick(f)
		if !ok {
			if c.And {
				continue
			}
			return nil, false
		}
		out = append(out, r)
	}
	p := compound(c.And, out)
	return p, p != nil
}

func (c *Compound) negate() Predicate {
	out := make([]Predicate, len(c.Children))
	for i, ch := range c.Children {
		out[i] = Not(ch)
	}
	return compound(!c.And, out)
}

// String implements Predicate; children are parenthesised when compound.
func (c *Compound) String() string {
	sep := " OR "
	if c.And {
		sep = " AND "
	}
	parts := make([]string, len(c.Children))
	for i, ch := range c.Children {
		s := ch.String()
		if _, ok := ch.(*Compound); ok {
			s = "(" + s + ")"
		}
		parts[i] = s
	}
	return strings.Join(parts, sep)
}

// Negation is NOT of a predicate that has no direct negated form (only
// StartsWith leaves today). Its TestStats is always true (no pruning).
type Negation struct {
	Child Predicate
}

// Not returns the negation of p under SQL three-valued logic, pushed down to
// the leaves like Java Predicate.negate (De Morgan for AND/OR, = ↔ <>,
// < ↔ >=, IN ↔ NOT IN, IS NULL ↔ IS NOT NULL); where no direct form exists
// it wraps p in a *Negation. Not(nil) is nil.
func Not(p Predicate) Predicate {
	if p == nil {
		return nil
	}
	if n := p.negate(); n != nil {
		return n
	}
	return &Negation{Child: p}
}

func (n *Negation) eval(row []any) tri {
	switch n.Child.eval(row) {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triUnknown
}

// Test implements Predicate.
func (n *Negation) Test(row []any) bool { return n.eval(row) == triTrue }

// TestStats implements Predicate; it cannot prune and returns true.
func (n *Negation) TestStats(int64, []any, []any, []int64) bool { return true }

// Fields implements Predicate.
func (n *Negation) Fields() []int { return fieldsOf(n) }

func (n *Negation) collect(set map[int]bool) { n.Child.collect(set) }

// Remap implements Predicate.
func (n *Negation) Remap(f func(int) (int, bool)) (Predicate, bool) {
	c, ok := n.Child.Remap(f)
	if !ok {
		return nil, false
	}
	return &Negation{Child: c}, true
}

// Pick implements Predicate. Dropping conjuncts under NOT would strengthen
// the filter, so the child must remap completely.
func (n *Negation) Pick(f func(int) (int, bool)) (Predicate, bool) { return n.Remap(f) }

func (n *Negation) negate() Predicate { return n.Child }

// String implements Predicate.
func (n *Negation) String() string { return "NOT (" + n.Child.String() + ")" }

func fieldsOf(p Predicate) []int {
	set := map[int]bool{}
	p.collect(set)
	out := make([]int, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// Leaves returns the leaf predicates of p in order (no negation wrappers
// unwrapped: a *Negation's leaves are included).
func Leaves(p Predicate) []*Leaf {
	var out []*Leaf
	var walk func(Predicate)
	walk = func(p Predicate) {
		switch p := p.(type) {
		case *Leaf:
			out = append(out, p)
		case *Compound:
			for _, c := range p.Children {
				walk(c)
			}
		case *Negation:
			walk(p.Child)
		}
	}
	walk(p)
	return out
}

// Conjuncts splits p into its top-level AND children (p itself when it is
// not an AND; nil for nil).
func Conjuncts(p Predicate) []Predicate {
	if p == nil {
		return nil
	}
	if c, ok := p.(*Compound); ok && c.And {
		return slices.Clone(c.Children)
	}
	return []Predicate{p}
}
