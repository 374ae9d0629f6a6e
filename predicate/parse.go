package predicate

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/paimon-go/paimon/types"
)

// Parse errors.
var (
	// ErrSyntax marks a malformed expression or a literal that does not fit
	// its column's type.
	ErrSyntax = errors.New("predicate: syntax error")
	// ErrUnknownField marks a column name that is not among the fields.
	ErrUnknownField = errors.New("predicate: unknown field")
)

// Parse parses a filter expression over the given row fields (Ref.Index is
// the position in fields), as used by the CLI's --where flag:
//
//	a = 1 AND (b > 'x' OR c IS NULL) AND d IN (1, 2) AND NOT e <= 3.5
//
// Grammar (keywords case-insensitive; NOT binds tighter than AND, AND
// tighter than OR):
//
//	expr    := and (OR and)*
//	and     := unary (AND unary)*
//	unary   := NOT unary | '(' expr ')' | cond
//	cond    := column op literal            op: = == != <> < <= > >=
//	         | column IS [NOT] NULL
//	         | column [NOT] IN '(' literal (',' literal)* ')'
//	         | column [NOT] BETWEEN literal AND literal
//	         | column [NOT] LIKE 'prefix%'  (only a trailing %; no % or _ elsewhere)
//	column  := name | `quoted name` | "quoted name"
//
// Literals are typed by their column: integers (range-checked), decimals
// (exact: no digits beyond the column's scale), floats, 'strings' (” escapes
// a quote), TRUE/FALSE, NULL, dates 'YYYY-MM-DD', times 'HH:MM:SS[.fff]',
// timestamps 'YYYY-MM-DD[ HH:MM[:SS[.fffffffff]]]' ('T' also separates;
// TIMESTAMP WITH LOCAL TIME ZONE literals are read as UTC), binaries X'0aff'
// or 'text'. An optional DATE/TIME/TIMESTAMP keyword before a quoted literal
// is accepted. Comparing with NULL is allowed and never matches.
//
// Column names match exactly, else case-insensitively if that is unique.
// Errors wrap ErrSyntax or ErrUnknownField.
func Parse(expr string, fields []types.DataField) (Predicate, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{expr: expr, toks: toks, fields: fields}
	pred, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if !p.at(tEOF) {
		return nil, p.errorf("unexpected %s", p.peek().describe())
	}
	return pred, nil
}

type tkind int

const (
	tEOF tkind = iota
	tIdent
	tQuotedIdent
	tString
	tHex
	tNumber
	tOp
	tLParen
	tRParen
	tComma
)

type tok struct {
	kind tkind
	text string
	pos  int
}

func (t tok) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return fmt.Sprintf("string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

func lex(s string) ([]tok, error) {
	var out []tok
	i := 0
	fail := func(pos int, format string, args ...any) error {
		return fmt.Errorf("%w: at offset %d: %s", ErrSyntax, pos, fmt.Sprintf(format, args...))
	}
	quoted := func(q byte) (string, int, bool) {
		var b strings.Builder
		j := i + 1
		for j < len(s) {
			if s[j] == q {
				if j+1 < len(s) && s[j+1] == q {
					b.WriteByte(q)
					j += 2
					continue
				}
				return b.String(), j + 1, true
			}
			b.WriteByte(s[j])
			j++
		}
		return "", j, false
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(':
			out = append(out, tok{tLParen, "(", i})
			i++
		case c == ')':
			out = append(out, tok{tRParen, ")", i})
			i++
		case c == ',':
			out = append(out, tok{tComma, ",", i})
			i++
		case c == '\'':
			text, next, ok := quoted('\'')
			if !ok {
				return nil, fail(i, "unterminated string")
			}
			out = append(out, tok{tString, text, i})
			i = next
		case c == '`' || c == '"':
			text, next, ok := quoted(c)
			if !ok {
				return nil, fail(i, "unterminated quoted name")
			}
			out = append(out, tok{tQuotedIdent, text, i})
			i = next
		case (c == 'x' || c == 'X') && i+1 < len(s) && s[i+1] == '\'':
			i++
			text, next, ok := quoted('\'')
			if !ok {
				return nil, fail(i, "unterminated binary literal")
			}
			out = append(out, tok{tHex, text, i - 1})
			i = next
		case c == '=' || c == '<' || c == '>' || c == '!':
			j := i + 1
			if j < len(s) && (s[j] == '=' || (c == '<' && s[j] == '>')) {
				j++
			}
			op := s[i:j]
			if op == "!" {
				return nil, fail(i, "unexpected '!'")
			}
			out = append(out, tok{tOp, op, i})
			i = j
		case c >= '0' && c <= '9' || c == '.' || ((c == '-' || c == '+') && i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '.')):
			j := i + 1
			for j < len(s) {
				d := s[j]
				if d >= '0' && d <= '9' || d == '.' {
					j++
				} else if (d == 'e' || d == 'E') && j+1 < len(s) {
					j++
					if s[j] == '+' || s[j] == '-' {
						j++
					}
				} else {
					break
				}
			}
			out = append(out, tok{tNumber, s[i:j], i})
			i = j
		case c == '_' || c >= 0x80 || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= 0x80 ||
				unicode.IsLetter(rune(s[j])) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, tok{tIdent, s[i:j], i})
			i = j
		default:
			return nil, fail(i, "unexpected character %q", c)
		}
	}
	return append(out, tok{tEOF, "", len(s)}), nil
}

type parser struct {
	expr   string
	toks   []tok
	pos    int
	fields []types.DataField
}

// peek returns the current token; past the end it keeps returning EOF.
func (p *parser) peek() tok { return p.toks[min(p.pos, len(p.toks)-1)] }

// next returns the current token and advances; p.pos-- undoes it.
func (p *parser) next() tok {
	t := p.peek()
	p.pos++
	return t
}

func (p *parser) at(k tkind) bool { return p.peek().kind == k }

func (p *parser) atKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) acceptKeyword(kw string) bool {
	if p.atKeyword(kw) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expectKeyword(kw string) error {
	if !p.acceptKeyword(kw) {
		return p.errorf("expected %s, found %s", kw, p.peek().describe())
	}
	return nil
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: at offset %d of %q: %s", ErrSyntax, p.peek().pos, p.expr, fmt.Sprintf(format, args...))
}

func (p *parser) parseOr() (Predicate, error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	parts := []Predicate{left}
	for p.acceptKeyword("OR") {
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		parts = append(parts, right)
	}
	return Or(parts...), nil
}

func (p *parser) parseAnd() (Predicate, error) {
	left, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	parts := []Predicate{left}
	for p.acceptKeyword("AND") {
		right, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		parts = append(parts, right)
	}
	return And(parts...), nil
}

func (p *parser) parseUnary() (Predicate, error) {
	if p.acceptKeyword("NOT") {
		inner, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return Not(inner), nil
	}
	if p.at(tLParen) {
		p.next()
		inner, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if !p.at(tRParen) {
			return nil, p.errorf("expected ')', found %s", p.peek().describe())
		}
		p.next()
		return inner, nil
	}
	return p.parseCond()
}

var reserved = map[string]bool{"AND": true, "OR": true, "NOT": true, "IS": true, "IN": true,
	"NULL": true, "LIKE": true, "BETWEEN": true, "TRUE": true, "FALSE": true}

func (p *parser) resolve(t tok) (Ref, error) {
	if ref, ok := RefOf(p.fields, t.text); ok {
		return ref, nil
	}
	found := -1
	for i, f := range p.fields {
		if strings.EqualFold(f.Name, t.text) {
			if found >= 0 {
				return Ref{}, fmt.Errorf("%w: %q is ambiguous (matches %q and %q)", ErrUnknownField, t.text, p.fields[found].Name, f.Name)
			}
			found = i
		}
	}
	if found < 0 {
		return Ref{}, fmt.Errorf("%w: %q (fields: %s)", ErrUnknownField, t.text, strings.Join(types.FieldNames(p.fields), ", "))
	}
	f := p.fields[found]
	return Ref{Index: found, Name: f.Name, Type: f.Type}, nil
}

func (p *parser) parseCond() (Predicate, error) {
	t := p.next()
	if t.kind != tIdent && t.kind != tQuotedIdent || t.kind == tIdent && reserved[strings.ToUpper(t.text)] {
		p.pos--
		return nil, p.errorf("expected a column name, found %s", t.describe())
	}
	ref, err := p.resolve(t)
	if err != nil {
		return nil, err
	}
	if p.acceptKeyword("IS") {
		not := p.acceptKeyword("NOT")
		if err := p.expectKeyword("NULL"); err != nil {
			return nil, err
		}
		if not {
			return IsNotNull(ref), nil
		}
		return IsNull(ref), nil
	}
	not := p.acceptKeyword("NOT")
	switch {
	case p.acceptKeyword("IN"):
		if !p.at(tLParen) {
			return nil, p.errorf("expected '(' after IN")
		}
		p.next()
		var lits []any
		for {
			v, err := p.parseLiteral(ref)
			if err != nil {
				return nil, err
			}
			lits = append(lits, v)
			if p.at(tComma) {
				p.next()
				continue
			}
			if p.at(tRParen) {
				p.next()
				break
			}
			return nil, p.errorf("expected ',' or ')' in IN list, found %s", p.peek().describe())
		}
		if not {
			return NotIn(ref, lits...), nil
		}
		return In(ref, lits...), nil
	case p.acceptKeyword("BETWEEN"):
		lo, err := p.parseLiteral(ref)
		if err != nil {
			return nil, err
		}
		if err := p.expectKeyword("AND"); err != nil {
			return nil, err
		}
		hi, err := p.parseLiteral(ref)
		if err != nil {
			return nil, err
		}
		between := And(GreaterOrEqual(ref, lo), LessOrEqual(ref, hi))
		if not {
			return Not(between), nil
		}
		return between, nil
	case p.acceptKeyword("LIKE"):
		pt := p.next()
		if pt.kind != tString {
			p.pos--
			return nil, p.errorf("expected a quoted pattern after LIKE")
		}
		if !ref.Type.IsString() {
			return nil, p.errorf("LIKE needs a CHAR/VARCHAR column, %s is %s", ref.Name, ref.Type)
		}
		body, prefix := strings.CutSuffix(pt.text, "%")
		if strings.ContainsAny(body, "%_") {
			return nil, p.errorf("only prefix patterns 'abc%%' are supported, got %q", pt.text)
		}
		var pred Predicate
		if prefix {
			pred = StartsWith(ref, body)
		} else {
			pred = Equal(ref, body)
		}
		if not {
			return Not(pred), nil
		}
		return pred, nil
	}
	if not {
		return nil, p.errorf("expected IN, BETWEEN or LIKE after NOT")
	}
	op := p.next()
	if op.kind != tOp {
		p.pos--
		return nil, p.errorf("expected a comparison operator after %s, found %s", t.describe(), op.describe())
	}
	lit, err := p.parseLiteral(ref)
	if err != nil {
		return nil, err
	}
	switch op.text {
	case "=", "==":
		return Equal(ref, lit), nil
	case "!=", "<>":
		return NotEqual(ref, lit), nil
	case "<":
		return LessThan(ref, lit), nil
	case "<=":
		return LessOrEqual(ref, lit), nil
	case ">":
		return GreaterThan(ref, lit), nil
	case ">=":
		return GreaterOrEqual(ref, lit), nil
	}
	return nil, p.errorf("unknown operator %q", op.text)
}

func (p *parser) parseLiteral(ref Ref) (any, error) {
	// optional type keyword before a quoted literal: DATE '...', TIMESTAMP '...'
	if (p.atKeyword("DATE") || p.atKeyword("TIME") || p.atKeyword("TIMESTAMP")) &&
		p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == tString {
		p.next()
	}
	t := p.next()
	switch {
	case t.kind == tIdent && strings.EqualFold(t.text, "NULL"):
		return nil, nil
	case t.kind == tIdent && (strings.EqualFold(t.text, "TRUE") || strings.EqualFold(t.text, "FALSE")):
		if ref.Type.Kind != types.KindBoolean {
			p.pos--
			return nil, p.errorf("%s is not a literal of %s (%s)", t.text, ref.Name, ref.Type)
		}
		return strings.EqualFold(t.text, "TRUE"), nil
	case t.kind == tString || t.kind == tNumber || t.kind == tHex:
		v, err := ParseLiteral(ref.Type, t.text, t.kind == tHex)
		if err != nil {
			p.pos--
			return nil, p.errorf("literal %s for %s: %v", t.describe(), ref.Name, err)
		}
		return v, nil
	}
	p.pos--
	return nil, p.errorf("expected a literal, found %s", t.describe())
}

// ParseLiteral converts the text of a literal to the Go value of type t (see
// Parse for the accepted forms). hexBinary marks an X'..' literal.
func ParseLiteral(t types.DataType, text string, hexBinary bool) (any, error) {
	if hexBinary {
		if !t.IsBinary() && t.Kind != types.KindBlob {
			return nil, fmt.Errorf("binary literal for %s", t)
		}
		b, err := hex.DecodeString(text)
		if err != nil {
			return nil, fmt.Errorf("bad hex: %v", err)
		}
		return b, nil
	}
	s := strings.TrimSpace(text)
	switch t.Kind {
	case types.KindBoolean:
		switch strings.ToLower(s) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("not a boolean")
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		bits := map[types.Kind]int{types.KindTinyInt: 8, types.KindSmallInt: 16, types.KindInt: 32, types.KindBigInt: 64}[t.Kind]
		n, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("not a %d-bit integer", bits)
		}
		switch t.Kind {
		case types.KindTinyInt:
			return int8(n), nil
		case types.KindSmallInt:
			return int16(n), nil
		case types.KindInt:
			return int32(n), nil
		}
		return n, nil
	case types.KindFloat:
		f, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, fmt.Errorf("not a FLOAT")
		}
		return float32(f), nil
	case types.KindDouble:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("not a DOUBLE")
		}
		return f, nil
	case types.KindDecimal:
		return parseDecimal(t, s)
	case types.KindChar, types.KindVarChar:
		return text, nil
	case types.KindBinary, types.KindVarBinary, types.KindBlob:
		return []byte(text), nil
	case types.KindDate:
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, fmt.Errorf("not a date YYYY-MM-DD")
		}
		return int32(floorDiv(d.Unix(), 86400)), nil
	case types.KindTime:
		for _, layout := range []string{"15:04:05.999999999", "15:04"} {
			if tm, err := time.Parse(layout, s); err == nil {
				ms := (tm.Hour()*3600+tm.Minute()*60+tm.Second())*1000 + tm.Nanosecond()/1e6
				return int32(ms), nil
			}
		}
		return nil, fmt.Errorf("not a time HH:MM:SS[.fff]")
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		s = strings.Replace(s, "T", " ", 1)
		for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
			if tm, err := time.Parse(layout, s); err == nil {
				ns := int64(tm.Nanosecond())
				return types.Timestamp{Millis: tm.Unix()*1000 + ns/1e6, NanoOfMilli: int32(ns % 1e6)}, nil
			}
		}
		return nil, fmt.Errorf("not a timestamp YYYY-MM-DD HH:MM:SS[.fffffffff]")
	}
	return nil, fmt.Errorf("filters on %s columns are not supported", t)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func parseDecimal(t types.DataType, s string) (types.Decimal, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return types.Decimal{}, fmt.Errorf("not a number")
	}
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)))
	if !scaled.IsInt() {
		return types.Decimal{}, fmt.Errorf("%s has more than %d fractional digits", s, t.Scale)
	}
	u := new(big.Int).Set(scaled.Num())
	if len(new(big.Int).Abs(u).String()) > t.Precision {
		return types.Decimal{}, fmt.Errorf("%s does not fit DECIMAL(%d, %d)", s, t.Precision, t.Scale)
	}
	return types.Decimal{Unscaled: u, Precision: t.Precision, Scale: t.Scale}, nil
}

// FormatLiteral renders a Go value of type t as a literal Parse accepts:
// NULL, TRUE/FALSE, numbers, 'quoted strings', DATE/TIME/TIMESTAMP as quoted
// text, binaries as X'hex'.
func FormatLiteral(t types.DataType, v any) string {
	if v == nil {
		return "NULL"
	}
	switch t.Kind {
	case types.KindBoolean:
		if b, ok := v.(bool); ok {
			if b {
				return "TRUE"
			}
			return "FALSE"
		}
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		if n, ok := types.AsInt64(v); ok {
			return strconv.FormatInt(n, 10)
		}
	case types.KindFloat:
		if f, ok := types.AsFloat64(v); ok {
			return formatFloat(f, 32)
		}
	case types.KindDouble:
		if f, ok := types.AsFloat64(v); ok {
			return formatFloat(f, 64)
		}
	case types.KindDecimal:
		if d, ok := v.(types.Decimal); ok && d.Unscaled != nil {
			return decimalString(d)
		}
	case types.KindChar, types.KindVarChar:
		if s, ok := v.(string); ok {
			return quoteString(s)
		}
	case types.KindBinary, types.KindVarBinary, types.KindBlob:
		if b, ok := v.([]byte); ok {
			return "X'" + hex.EncodeToString(b) + "'"
		}
	case types.KindDate:
		if n, ok := types.AsInt64(v); ok {
			return "DATE '" + time.Unix(n*86400, 0).UTC().Format("2006-01-02") + "'"
		}
	case types.KindTime:
		if n, ok := types.AsInt64(v); ok {
			return "TIME '" + time.UnixMilli(n).UTC().Format("15:04:05.999") + "'"
		}
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		if ts, ok := v.(types.Timestamp); ok {
			return "TIMESTAMP '" + ts.Time().Format("2006-01-02 15:04:05.999999999") + "'"
		}
	}
	return fmt.Sprintf("'%v'", v)
}

func formatFloat(f float64, bits int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "'" + strconv.FormatFloat(f, 'g', -1, bits) + "'"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func decimalString(d types.Decimal) string {
	s := new(big.Int).Abs(d.Unscaled).String()
	neg := d.Unscaled.Sign() < 0
	if d.Scale > 0 {
		if len(s) <= d.Scale {
			s = strings.Repeat("0", d.Scale-len(s)+1) + s
		}
		s = s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
