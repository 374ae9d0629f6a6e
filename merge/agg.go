package merge

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// fieldAgg aggregates one field across the records of a key. It mirrors
// Java's FieldAggregator: agg(acc, in) and retract(acc, in) return the new
// accumulator, here written back into *acc. Null is cNull. An aggregator may
// keep per-key state (first_value); reset clears it.
type fieldAgg interface {
	reset()
	agg(acc, in *cell) error
	retract(acc, in *cell) error
}

// aggReversed is FieldAggregator.aggReversed: agg(in, acc). tmp is scratch
// space owned by the caller.
func aggReversed(a fieldAgg, acc, in, tmp *cell) error {
	if _, ok := a.(interface{ aggReversedSelf() }); ok {
		// FieldCollectAgg.aggReversed is agg(acc, in); FieldIgnoreRetractAgg
		// does not forward aggReversed, so a wrapped collect reverses.
		return a.agg(acc, in)
	}
	*tmp = *in
	if err := a.agg(tmp, acc); err != nil {
		return err
	}
	*acc = *tmp
	return nil
}

// newFieldAgg builds the aggregator for a value column. The spec was
// validated against the Paimon type by NewConfig; here the Arrow storage
// class is checked against it.
func newFieldAgg(spec aggSpec, col *valueCol) (fieldAgg, error) {
	bad := func() error {
		return fmt.Errorf("%w: column %q has Arrow type %s, which does not fit aggregate function %s",
			ErrSchema, col.name, col.dt, spec.name)
	}
	var a fieldAgg
	switch spec.name {
	case aggSum, aggProduct:
		if !col.cls.isInt() && col.cls != clsF32 && col.cls != clsF64 && col.cls != clsDec128 {
			return nil, bad()
		}
		if spec.name == aggSum {
			a = &sumAgg{col: col}
		} else {
			a = &productAgg{col: col}
		}
	case aggMin, aggMax:
		if !col.cls.comparable() {
			return nil, bad()
		}
		a = &minMaxAgg{col: col, max: spec.name == aggMax}
	case aggLastValue:
		a = lastValueAgg{}
	case aggLastNonNullValue:
		a = lastNonNullAgg{}
	case aggFirstValue:
		a = &firstValueAgg{col: col}
	case aggFirstNonNullValue:
		a = &firstValueAgg{col: col, nonNull: true}
	case aggPrimaryKey:
		a = primaryKeyAgg{}
	case aggListAgg:
		if col.cls != clsBytes && col.cls != clsLBytes {
			return nil, bad()
		}
		a = &listAgg{col: col, delim: []byte(spec.delimiter), distinct: spec.distinct}
	case aggBoolAnd, aggBoolOr:
		if col.cls != clsBool {
			return nil, bad()
		}
		a = &boolAgg{col: col, or: spec.name == aggBoolOr}
	case aggCollect, aggMergeMap, aggMergeMapWithKeyTime, aggNestedUpdate, aggNestedPartialUpdate, aggRbm32:
		var err error
		if a, err = newNestedAgg(spec, col); err != nil {
			return nil, err
		}
	case aggRbm64, aggThetaSketch, aggHllSketch:
		var err error
		if a, err = newSketchAgg(spec, col); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: aggregate function %q", ErrUnsupported, spec.name)
	}
	if spec.ignoreRetract {
		a = ignoreRetractAgg{a}
	}
	return a, nil
}

func retractUnsupported(col *valueCol, fn string) error {
	return fmt.Errorf("%w: aggregate function %q of field %q does not support retraction; set '%s'='true' to ignore retractions",
		ErrRetract, fn, col.name, fieldKey(col.name, suffixIgnoreRetract))
}

// ignoreRetractAgg is FieldIgnoreRetractAgg.
type ignoreRetractAgg struct{ fieldAgg }

// finisher is implemented by aggregators whose accumulator must be
// materialised when the merge of a key ends (see lazyAcc).
type finisher interface{ finish(acc *cell) error }

func (a ignoreRetractAgg) finish(acc *cell) error { return finishAgg(a.fieldAgg, acc) }

// finishAgg materialises acc if a keeps it lazily.
func finishAgg(a fieldAgg, acc *cell) error {
	if f, ok := a.(finisher); ok {
		return f.finish(acc)
	}
	return nil
}

func (ignoreRetractAgg) retract(acc, in *cell) error { return nil }

// lastValueAgg is FieldLastValueAgg.
type lastValueAgg struct{}

func (lastValueAgg) reset()                      {}
func (lastValueAgg) agg(acc, in *cell) error     { *acc = *in; return nil }
func (lastValueAgg) retract(acc, in *cell) error { *acc = cell{}; return nil }

// lastNonNullAgg is FieldLastNonNullValueAgg.
type lastNonNullAgg struct{}

func (lastNonNullAgg) reset() {}
func (lastNonNullAgg) agg(acc, in *cell) error {
	if in.st != cNull {
		*acc = *in
	}
	return nil
}
func (lastNonNullAgg) retract(acc, in *cell) error {
	if in.st != cNull {
		*acc = cell{}
	}
	return nil
}

// primaryKeyAgg is FieldPrimaryKeyAgg.
type primaryKeyAgg struct{}

func (primaryKeyAgg) reset()                      {}
func (primaryKeyAgg) agg(acc, in *cell) error     { *acc = *in; return nil }
func (primaryKeyAgg) retract(acc, in *cell) error { *acc = *in; return nil }

// firstValueAgg is FieldFirstValueAgg, or FieldFirstNonNullValueAgg when nonNull.
type firstValueAgg struct {
	col         *valueCol
	nonNull     bool
	initialized bool
}

func (a *firstValueAgg) reset() { a.initialized = false }
func (a *firstValueAgg) agg(acc, in *cell) error {
	if !a.initialized && (!a.nonNull || in.st != cNull) {
		a.initialized = true
		*acc = *in
	}
	return nil
}
func (a *firstValueAgg) retract(acc, in *cell) error {
	if a.nonNull {
		return retractUnsupported(a.col, aggFirstNonNullValue)
	}
	return retractUnsupported(a.col, aggFirstValue)
}

// nullPassThrough applies the null rule the combining aggregates share
// (Java's FieldMinAgg, FieldMaxAgg, FieldSumAgg, FieldProductAgg,
// FieldBoolAndAgg, FieldBoolOrAgg): when the accumulator or the input is
// null the result is the other one. It reports whether it decided the result.
func nullPassThrough(acc, in *cell) bool {
	if acc.st != cNull && in.st != cNull {
		return false
	}
	if acc.st == cNull {
		*acc = *in
	}
	return true
}

// minMaxAgg is FieldMinAgg / FieldMaxAgg.
type minMaxAgg struct {
	col *valueCol
	max bool
}

func (a *minMaxAgg) reset() {}
func (a *minMaxAgg) agg(acc, in *cell) error {
	if nullPassThrough(acc, in) {
		return nil
	}
	less := a.col.compare(acc, in) < 0
	if less == a.max {
		*acc = *in
	}
	return nil
}
func (a *minMaxAgg) retract(acc, in *cell) error {
	if a.max {
		return retractUnsupported(a.col, aggMax)
	}
	return retractUnsupported(a.col, aggMin)
}

// boolAgg is FieldBoolAndAgg / FieldBoolOrAgg.
type boolAgg struct {
	col *valueCol
	or  bool
}

func (a *boolAgg) reset() {}
func (a *boolAgg) agg(acc, in *cell) error {
	if nullPassThrough(acc, in) {
		return nil
	}
	x, y := a.col.boolOf(acc), a.col.boolOf(in)
	r := x && y
	if a.or {
		r = x || y
	}
	*acc = cell{st: cBool}
	if r {
		acc.i = 1
	}
	return nil
}
func (a *boolAgg) retract(acc, in *cell) error {
	if a.or {
		return retractUnsupported(a.col, aggBoolOr)
	}
	return retractUnsupported(a.col, aggBoolAnd)
}

// listAgg is FieldListaggAgg.
type listAgg struct {
	col      *valueCol
	delim    []byte
	distinct bool
}

func (a *listAgg) reset() {}
func (a *listAgg) agg(acc, in *cell) error {
	if in.st == cNull {
		return nil
	}
	inB := a.col.bytesOf(in)
	if javaIsBlank(inB) {
		return nil
	}
	if acc.st == cNull || javaIsBlank(a.col.bytesOf(acc)) {
		*acc = *in
		return nil
	}
	accB := a.col.bytesOf(acc)
	if !a.distinct {
		out := make([]byte, 0, len(accB)+len(a.delim)+len(inB))
		out = append(append(append(out, accB...), a.delim...), inB...)
		*acc = cell{st: cBytes, s: out}
		return nil
	}
	existing := map[string]bool{}
	for _, t := range javaSplitPreserveAll(accB, a.delim) {
		existing[string(t)] = true
	}
	var out []byte
	for _, t := range javaSplitPreserveAll(inB, a.delim) {
		if javaIsBlank(t) || existing[string(t)] {
			continue
		}
		existing[string(t)] = true
		if out == nil {
			out = append(out, accB...)
		}
		out = append(append(out, a.delim...), t...)
	}
	if out != nil {
		*acc = cell{st: cBytes, s: out}
	}
	return nil
}
func (a *listAgg) retract(acc, in *cell) error { return retractUnsupported(a.col, aggListAgg) }

// javaSplitPreserveAll is BinaryStringUtils.splitByWholeSeparatorPreserveAllTokens:
// empty input gives no tokens, an empty separator splits on " ", adjacent
// and trailing separators yield empty tokens.
func javaSplitPreserveAll(s, sep []byte) [][]byte {
	if len(s) == 0 {
		return nil
	}
	if len(sep) == 0 {
		sep = []byte(" ")
	}
	return bytes.Split(s, sep)
}

// javaIsBlank is StringUtils.isBlank over the UTF-16 chars of a string:
// true when every char is Character.isWhitespace.
func javaIsBlank(s []byte) bool {
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if !javaIsWhitespace(r) {
			return false
		}
		s = s[n:]
	}
	return true
}

// javaIsWhitespace is Character.isWhitespace(char) for BMP code points: Unicode
// space, line and paragraph separators except the no-break spaces, plus the
// ASCII controls \t \n \u000B \f \r and \u001C-\u001F.
func javaIsWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\u000B', '\f', '\r', '\u001C', '\u001D', '\u001E', '\u001F',
		' ', '\u1680', '\u2028', '\u2029', '\u205F', '\u3000':
		return true
	}
	return (r >= '\u2000' && r <= '\u2006') || (r >= '\u2008' && r <= '\u200A')
}

// sumAgg is FieldSumAgg.
type sumAgg struct{ col *valueCol }

func (a *sumAgg) reset() {}
func (a *sumAgg) agg(acc, in *cell) error {
	if nullPassThrough(acc, in) {
		return nil
	}
	return arith(a.col, aggSum, '+', acc, in)
}
func (a *sumAgg) retract(acc, in *cell) error {
	if acc.st == cNull || in.st == cNull {
		if acc.st == cNull {
			if in.st == cNull {
				*acc = cell{}
				return nil
			}
			return negate(a.col, acc, in)
		}
		return nil
	}
	return arith(a.col, aggSum, '-', acc, in)
}

// productAgg is FieldProductAgg.
type productAgg struct{ col *valueCol }

func (a *productAgg) reset() {}
func (a *productAgg) agg(acc, in *cell) error {
	if nullPassThrough(acc, in) {
		return nil
	}
	return arith(a.col, aggProduct, '*', acc, in)
}
func (a *productAgg) retract(acc, in *cell) error {
	if acc.st == cNull || in.st == cNull {
		return nil
	}
	return arith(a.col, aggProduct, '/', acc, in)
}

// intRange returns the value range of an integer class.
func intRange(cls class) (lo, hi int64, name string) {
	switch cls {
	case clsI8:
		return math.MinInt8, math.MaxInt8, "byte"
	case clsI16:
		return math.MinInt16, math.MaxInt16, "short"
	case clsI32:
		return math.MinInt32, math.MaxInt32, "int"
	}
	return math.MinInt64, math.MaxInt64, "long"
}

// arith computes acc = acc op in for non-null numeric cells with Java's
// semantics: Math.*Exact for integers (ArithmeticException -> ErrArithmetic),
// IEEE arithmetic in the column's own width for floats, DecimalUtils /
// BigDecimal for decimals (results exceeding the precision become null).
func arith(col *valueCol, fn string, op byte, acc, in *cell) error {
	switch {
	case col.cls.isInt():
		x, y := col.intOf(acc), col.intOf(in)
		lo, hi, tname := intRange(col.cls)
		var r int64
		ok := true
		switch op {
		case '+':
			r = x + y
			ok = !((x > 0 && y > 0 && r < 0) || (x < 0 && y < 0 && r >= 0))
		case '-':
			r = x - y
			ok = !((x >= 0 && y < 0 && r < 0) || (x < 0 && y > 0 && r >= 0))
		case '*':
			r = x * y
			ok = !(x != 0 && (r/x != y || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64)))
		case '/':
			if y == 0 {
				return fmt.Errorf("%w: %s of field %q: / by zero", ErrArithmetic, fn, col.name)
			}
			if x == lo && y == -1 && col.cls == clsI64 {
				ok = false
			} else {
				r = x / y
			}
		}
		if !ok || r < lo || r > hi {
			return fmt.Errorf("%w: %s of field %q: %s overflow: %d %c %d", ErrArithmetic, fn, col.name, tname, x, op, y)
		}
		*acc = cell{st: cInt, i: r}
	case col.cls == clsF32:
		x, y := float32(col.floatOf(acc)), float32(col.floatOf(in))
		var r float32
		switch op {
		case '+':
			r = x + y
		case '-':
			r = x - y
		case '*':
			r = x * y
		case '/':
			r = x / y
		}
		*acc = floatCell(float64(r))
	case col.cls == clsF64:
		x, y := col.floatOf(acc), col.floatOf(in)
		var r float64
		switch op {
		case '+':
			r = x + y
		case '-':
			r = x - y
		case '*':
			r = x * y
		case '/':
			r = x / y
		}
		*acc = floatCell(r)
	case col.cls == clsDec128:
		r, err := decimalArith(col, op, col.decOf(acc), col.decOf(in))
		if err != nil {
			return fmt.Errorf("%s of field %q: %w", fn, col.name, err)
		}
		*acc = r
	}
	return nil
}

// negate is FieldSumAgg.negative: acc = -in.
func negate(col *valueCol, acc, in *cell) error {
	switch {
	case col.cls.isInt():
		x := col.intOf(in)
		lo, _, tname := intRange(col.cls)
		if x == lo {
			return fmt.Errorf("%w: sum of field %q: %s overflow: -%d", ErrArithmetic, col.name, tname, x)
		}
		*acc = cell{st: cInt, i: -x}
	case col.cls == clsF32 || col.cls == clsF64:
		*acc = floatCell(-col.floatOf(in))
	case col.cls == clsDec128:
		*acc = decCell(col.decOf(in).Negate())
	}
	return nil
}

var bigTen = big.NewInt(10)

func pow10(n int32) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil) }

// decimalArith applies op to two decimals of the column's precision and scale.
//
//   - '+' / '-' follow DecimalUtils.add / subtract: for compact precisions
//     (<= 18) an exact int64 result is kept even if it has more digits than
//     the precision, an int64 overflow gives null; otherwise the exact result
//     is null when it exceeds the precision.
//   - '*' / '/' follow FieldProductAgg: BigDecimal multiply / exact divide,
//     then Decimal.fromBigDecimal (round HALF_UP to the scale, null when the
//     precision is exceeded). Division by zero and non-terminating quotients
//     are ErrArithmetic, as Java's ArithmeticException.
func decimalArith(col *valueCol, op byte, x, y decimal128.Num) (cell, error) {
	p, s := col.prec, col.scale
	if op == '+' || op == '-' {
		if a, ok := decimalInt64(x); ok && p <= 18 {
			if b, ok := decimalInt64(y); ok {
				var r int64
				var overflow bool
				if op == '+' {
					r = a + b
					overflow = (a > 0 && b > 0 && r < 0) || (a < 0 && b < 0 && r >= 0)
				} else {
					r = a - b
					overflow = (a >= 0 && b < 0 && r < 0) || (a < 0 && b > 0 && r >= 0)
				}
				if overflow {
					return cell{}, nil // BigDecimal path: 19+ digits never fit a compact precision
				}
				return decCell(decimal128.FromI64(r)), nil
			}
		}
	}
	a, b := x.BigInt(), y.BigInt()
	var r *big.Int
	switch op {
	case '+':
		r = a.Add(a, b)
	case '-':
		r = a.Sub(a, b)
	case '*':
		r = roundHalfUp(a.Mul(a, b), pow10(s))
	case '/':
		if b.Sign() == 0 {
			return cell{}, fmt.Errorf("%w: decimal division by zero", ErrArithmetic)
		}
		// exact quotient a/b (scales cancel) must terminate
		g := new(big.Int).GCD(nil, nil, new(big.Int).Abs(a), new(big.Int).Abs(b))
		den := new(big.Int).Quo(new(big.Int).Abs(b), g)
		for _, f := range []int64{2, 5} {
			fb := big.NewInt(f)
			m := new(big.Int)
			for {
				q, rem := new(big.Int).QuoRem(den, fb, m)
				if rem.Sign() != 0 {
					break
				}
				den = q
			}
		}
		if a.Sign() != 0 && den.Cmp(big.NewInt(1)) != 0 {
			return cell{}, fmt.Errorf("%w: non-terminating decimal expansion; no exact representable decimal result", ErrArithmetic)
		}
		r = roundHalfUp(a.Mul(a, pow10(s)), b)
	}
	if new(big.Int).Abs(r).Cmp(pow10(p)) >= 0 {
		return cell{}, nil
	}
	return decCell(decimal128.FromBigInt(r)), nil
}

// decimalInt64 returns the unscaled value as int64 when it fits (Java's
// compact Decimal representation).
func decimalInt64(n decimal128.Num) (int64, bool) {
	lo, hi := n.LowBits(), n.HighBits()
	if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
		return int64(lo), true
	}
	return 0, false
}

// roundHalfUp returns n/d rounded to the nearest integer, ties away from zero
// (RoundingMode.HALF_UP).
func roundHalfUp(n, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(new(big.Int).Abs(d)) >= 0 {
		if (n.Sign() < 0) != (d.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}
