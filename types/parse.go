package types

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// ParseSQL parses the SQL form of an atomic data type the way Java
// DataTypeJsonParser.parseAtomicTypeSQLString does: keywords are
// case-insensitive, aliases INTEGER, NUMERIC/DEC, DOUBLE PRECISION, STRING,
// BYTES, TIMESTAMP_LTZ(p), "TIMESTAMP(p) WITHOUT TIME ZONE",
// "TIME(p) WITHOUT TIME ZONE" are accepted, an explicit "NULL" or "NOT NULL"
// suffix sets nullability, and the suffix notation "INT ARRAY" /
// "INT MULTISET" builds collections. Omitted parameters take Java's defaults
// (CHAR/VARCHAR/BINARY/VARBINARY length 1, DECIMAL(10, 0), TIME(0),
// TIMESTAMP(6)). As an extension it also accepts ARRAY<t>, MULTISET<t> and
// MAP<k, v>. ROW, VECTOR, GEOMETRY, GEOGRAPHY, INTERVAL and RAW are rejected.
//
// Errors wrap ErrUnknownType and quote the input.
func ParseSQL(s string) (DataType, error) {
	toks, err := tokenize(s)
	if err != nil {
		return DataType{}, fmt.Errorf("%w: %q: %v", ErrUnknownType, s, err)
	}
	p := &sqlParser{toks: toks}
	t, err := p.parseWithNullability()
	if err == nil && p.pos < len(p.toks) {
		err = fmt.Errorf("unexpected token %q", p.toks[p.pos].text)
	}
	if err == nil {
		err = t.Validate()
		if err != nil {
			return DataType{}, fmt.Errorf("%q: %w", s, err)
		}
		return t, nil
	}
	return DataType{}, fmt.Errorf("%w: %q: %v", ErrUnknownType, s, err)
}

type tokKind int

const (
	tokSymbol  tokKind = iota // one of < > ( ) , .
	tokString                 // '...'
	tokIdent                  // `...` or a non-keyword word
	tokInt                    // digits
	tokKeyword                // upper-cased word
)

type token struct {
	kind tokKind
	text string
}

func tokenize(s string) ([]token, error) {
	var toks []token
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case unicode.IsSpace(c):
		case c == '<' || c == '>' || c == '(' || c == ')' || c == ',' || c == '.':
			toks = append(toks, token{tokSymbol, string(c)})
		case c == '\'' || c == '`':
			var b strings.Builder
			closed := false
			j := i + 1
			for ; j < len(rs); j++ {
				if rs[j] == c {
					if j+1 < len(rs) && rs[j+1] == c {
						b.WriteRune(c)
						j++
						continue
					}
					closed = true
					break
				}
				b.WriteRune(rs[j])
			}
			if !closed {
				return nil, fmt.Errorf("unterminated %c literal", c)
			}
			i = j
			kind := tokString
			if c == '`' {
				kind = tokIdent
			}
			toks = append(toks, token{kind, b.String()})
		case c >= '0' && c <= '9':
			j := i
			for j < len(rs) && rs[j] >= '0' && rs[j] <= '9' {
				j++
			}
			toks = append(toks, token{tokInt, string(rs[i:j])})
			i = j - 1
		default:
			j := i
			for j < len(rs) && !isTypeDelimiter(rs[j]) {
				j++
			}
			word := string(rs[i:j])
			i = j - 1
			if up := strings.ToUpper(word); typeKeywords[up] {
				toks = append(toks, token{tokKeyword, up})
			} else {
				toks = append(toks, token{tokIdent, word})
			}
		}
	}
	return toks, nil
}

func isTypeDelimiter(c rune) bool {
	return unicode.IsSpace(c) || strings.ContainsRune("<>(),.'`", c)
}

// typeKeywords is Java DataTypeJsonParser.Keyword; it is read-only.
var typeKeywords = map[string]bool{
	"CHAR": true, "VARCHAR": true, "STRING": true, "BOOLEAN": true, "BINARY": true,
	"VARBINARY": true, "BYTES": true, "DECIMAL": true, "NUMERIC": true, "DEC": true,
	"TINYINT": true, "SMALLINT": true, "INT": true, "INTEGER": true, "BIGINT": true,
	"FLOAT": true, "DOUBLE": true, "PRECISION": true, "DATE": true, "TIME": true,
	"WITH": true, "WITHOUT": true, "LOCAL": true, "ZONE": true, "TIMESTAMP": true,
	"TIMESTAMP_LTZ": true, "INTERVAL": true, "YEAR": true, "MONTH": true, "DAY": true,
	"HOUR": true, "MINUTE": true, "SECOND": true, "TO": true, "ARRAY": true,
	"VECTOR": true, "MULTISET": true, "MAP": true, "ROW": true, "NULL": true,
	"RAW": true, "LEGACY": true, "VARIANT": true, "BLOB": true, "GEOMETRY": true,
	"GEOGRAPHY": true, "NOT": true,
}

type sqlParser struct {
	toks []token
	pos  int
}

func (p *sqlParser) peekKeyword(kws ...string) bool {
	if p.pos+len(kws) > len(p.toks) {
		return false
	}
	for i, kw := range kws {
		t := p.toks[p.pos+i]
		if t.kind != tokKeyword || t.text != kw {
			return false
		}
	}
	return true
}

func (p *sqlParser) peekSymbol(sym string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].kind == tokSymbol && p.toks[p.pos].text == sym
}

func (p *sqlParser) expectSymbol(sym string) error {
	if !p.peekSymbol(sym) {
		return p.unexpected("'" + sym + "'")
	}
	p.pos++
	return nil
}

func (p *sqlParser) expectKeyword(kw string) error {
	if !p.peekKeyword(kw) {
		return p.unexpected(kw)
	}
	p.pos++
	return nil
}

func (p *sqlParser) unexpected(want string) error {
	if p.pos >= len(p.toks) {
		return fmt.Errorf("%s expected but input ended", want)
	}
	return fmt.Errorf("%s expected but was %q", want, p.toks[p.pos].text)
}

func (p *sqlParser) expectInt() (int, error) {
	if p.pos >= len(p.toks) || p.toks[p.pos].kind != tokInt {
		return 0, p.unexpected("integer")
	}
	n, err := strconv.ParseInt(p.toks[p.pos].text, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("invalid integer %q", p.toks[p.pos].text)
	}
	p.pos++
	return int(n), nil
}

func (p *sqlParser) parseNullability() bool {
	if p.peekKeyword("NOT", "NULL") {
		p.pos += 2
		return false
	}
	if p.peekKeyword("NULL") {
		p.pos++
	}
	return true
}

func (p *sqlParser) parseWithNullability() (DataType, error) {
	t, err := p.parseByKeyword()
	if err != nil {
		return DataType{}, err
	}
	t.Nullable = p.parseNullability()
	for {
		switch {
		case p.peekKeyword("ARRAY"):
			p.pos++
			t = ArrayOf(t).WithNullable(p.parseNullability())
		case p.peekKeyword("MULTISET"):
			p.pos++
			t = MultisetOf(t).WithNullable(p.parseNullability())
		default:
			return t, nil
		}
	}
}

// optionalParams parses "(a)" or "(a, b)" if present; n is the count read.
func (p *sqlParser) optionalParams(max int) ([]int, error) {
	if !p.peekSymbol("(") {
		return nil, nil
	}
	p.pos++
	var out []int
	for {
		v, err := p.expectInt()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if len(out) < max && p.peekSymbol(",") {
			p.pos++
			continue
		}
		break
	}
	return out, p.expectSymbol(")")
}

func (p *sqlParser) parseByKeyword() (DataType, error) {
	if p.pos >= len(p.toks) {
		return DataType{}, fmt.Errorf("type expected but input ended")
	}
	tok := p.toks[p.pos]
	if tok.kind != tokKeyword {
		return DataType{}, fmt.Errorf("type keyword expected but was %q", tok.text)
	}
	p.pos++
	lengthType := func(k Kind) (DataType, error) {
		ps, err := p.optionalParams(1)
		if err != nil {
			return DataType{}, err
		}
		t := DataType{Kind: k, Length: 1}
		if len(ps) == 1 {
			t.Length = ps[0]
		}
		return t, nil
	}
	precisionType := func(k Kind, def int) (DataType, error) {
		ps, err := p.optionalParams(1)
		if err != nil {
			return DataType{}, err
		}
		t := DataType{Kind: k, Precision: def}
		if len(ps) == 1 {
			t.Precision = ps[0]
		}
		return t, nil
	}
	switch tok.text {
	case "CHAR":
		return lengthType(KindChar)
	case "VARCHAR":
		return lengthType(KindVarChar)
	case "BINARY":
		return lengthType(KindBinary)
	case "VARBINARY":
		return lengthType(KindVarBinary)
	case "STRING":
		return DataType{Kind: KindVarChar, Length: MaxLength}, nil
	case "BYTES":
		return DataType{Kind: KindVarBinary, Length: MaxLength}, nil
	case "BOOLEAN":
		return DataType{Kind: KindBoolean}, nil
	case "DECIMAL", "NUMERIC", "DEC":
		ps, err := p.optionalParams(2)
		if err != nil {
			return DataType{}, err
		}
		t := DataType{Kind: KindDecimal, Precision: 10}
		if len(ps) >= 1 {
			t.Precision = ps[0]
		}
		if len(ps) == 2 {
			t.Scale = ps[1]
		}
		return t, nil
	case "TINYINT":
		return DataType{Kind: KindTinyInt}, nil
	case "SMALLINT":
		return DataType{Kind: KindSmallInt}, nil
	case "INT", "INTEGER":
		return DataType{Kind: KindInt}, nil
	case "BIGINT":
		return DataType{Kind: KindBigInt}, nil
	case "FLOAT":
		return DataType{Kind: KindFloat}, nil
	case "DOUBLE":
		if p.peekKeyword("PRECISION") {
			p.pos++
		}
		return DataType{Kind: KindDouble}, nil
	case "DATE":
		return DataType{Kind: KindDate}, nil
	case "TIME":
		t, err := precisionType(KindTime, 0)
		if err != nil {
			return t, err
		}
		if p.peekKeyword("WITHOUT") {
			p.pos++
			if err := p.expectTimeZone(); err != nil {
				return t, err
			}
		}
		return t, nil
	case "TIMESTAMP":
		t, err := precisionType(KindTimestamp, 6)
		if err != nil {
			return t, err
		}
		switch {
		case p.peekKeyword("WITHOUT"):
			p.pos++
			if err := p.expectTimeZone(); err != nil {
				return t, err
			}
		case p.peekKeyword("WITH"):
			p.pos++
			if err := p.expectKeyword("LOCAL"); err != nil {
				return t, err
			}
			if err := p.expectTimeZone(); err != nil {
				return t, err
			}
			t.Kind = KindLocalZonedTimestamp
		}
		return t, nil
	case "TIMESTAMP_LTZ":
		return precisionType(KindLocalZonedTimestamp, 6)
	case "VARIANT":
		return DataType{Kind: KindVariant}, nil
	case "BLOB":
		return DataType{Kind: KindBlob}, nil
	case "ARRAY", "MULTISET":
		if err := p.expectSymbol("<"); err != nil {
			return DataType{}, err
		}
		elem, err := p.parseWithNullability()
		if err != nil {
			return DataType{}, err
		}
		if err := p.expectSymbol(">"); err != nil {
			return DataType{}, err
		}
		if tok.text == "ARRAY" {
			return ArrayOf(elem), nil
		}
		return MultisetOf(elem), nil
	case "MAP":
		if err := p.expectSymbol("<"); err != nil {
			return DataType{}, err
		}
		key, err := p.parseWithNullability()
		if err != nil {
			return DataType{}, err
		}
		if err := p.expectSymbol(","); err != nil {
			return DataType{}, err
		}
		value, err := p.parseWithNullability()
		if err != nil {
			return DataType{}, err
		}
		if err := p.expectSymbol(">"); err != nil {
			return DataType{}, err
		}
		return MapOf(key, value), nil
	}
	return DataType{}, fmt.Errorf("unsupported type %s", tok.text)
}

func (p *sqlParser) expectTimeZone() error {
	if err := p.expectKeyword("TIME"); err != nil {
		return err
	}
	return p.expectKeyword("ZONE")
}
