package types

// family is a set of Java DataTypeFamily values (bit per family).
type family uint16

const (
	famPredefined family = 1 << iota
	famCharString
	famBinaryString
	famNumeric
	famExactNumeric
	famIntegerNumeric
	famApproxNumeric
	famDatetime
	famTime
	famTimestamp
	famConstructed
	famCollection
	famExtension
)

// families is DataTypeRoot.getFamilies of each kind.
func families(k Kind) family {
	switch k {
	case KindChar, KindVarChar:
		return famPredefined | famCharString
	case KindBoolean, KindVariant, KindBlob:
		return famPredefined
	case KindBinary, KindVarBinary:
		return famPredefined | famBinaryString
	case KindDecimal:
		return famPredefined | famNumeric | famExactNumeric
	case KindTinyInt, KindSmallInt, KindInt, KindBigInt:
		return famPredefined | famNumeric | famIntegerNumeric | famExactNumeric
	case KindFloat, KindDouble:
		return famPredefined | famNumeric | famApproxNumeric
	case KindDate:
		return famPredefined | famDatetime
	case KindTime:
		return famPredefined | famDatetime | famTime
	case KindTimestamp:
		return famPredefined | famDatetime | famTimestamp
	case KindLocalZonedTimestamp:
		return famPredefined | famDatetime | famTimestamp | famExtension
	case KindArray, KindMultiset:
		return famConstructed | famCollection
	case KindMap:
		return famConstructed | famExtension
	case KindRow:
		return famConstructed
	}
	return 0
}

// castRule is one target kind's sources in DataTypeCasts: implicit and
// explicit, each as kinds and families.
type castRule struct {
	implicit, explicit       []Kind
	implicitFam, explicitFam family
}

var (
	integerCastRule = func(implicit ...Kind) castRule {
		return castRule{implicit: implicit, explicitFam: famNumeric | famCharString,
			explicit: []Kind{KindBoolean, KindTimestamp, KindLocalZonedTimestamp}}
	}
	// castRules is DataTypeCasts' static table (apache/paimon
	// paimon-api org.apache.paimon.types.DataTypeCasts, release-1.4.2 and
	// HEAD). Kinds absent cast implicitly from themselves only.
	castRules = map[Kind]castRule{
		KindChar:      {implicit: []Kind{KindChar}, explicitFam: famPredefined | famConstructed},
		KindVarChar:   {implicitFam: famCharString, explicitFam: famPredefined | famConstructed},
		KindBoolean:   {implicit: []Kind{KindBoolean}, explicitFam: famCharString | famIntegerNumeric},
		KindBinary:    {implicit: []Kind{KindBinary}, explicitFam: famCharString, explicit: []Kind{KindVarBinary}},
		KindVarBinary: {implicitFam: famBinaryString, explicitFam: famCharString, explicit: []Kind{KindBinary}},
		KindDecimal: {implicitFam: famNumeric, explicitFam: famCharString,
			explicit: []Kind{KindBoolean, KindTimestamp, KindLocalZonedTimestamp}},
		KindTinyInt:  integerCastRule(KindTinyInt),
		KindSmallInt: integerCastRule(KindTinyInt, KindSmallInt),
		KindInt:      integerCastRule(KindTinyInt, KindSmallInt, KindInt),
		KindBigInt:   integerCastRule(KindTinyInt, KindSmallInt, KindInt, KindBigInt),
		KindFloat:    integerCastRule(KindTinyInt, KindSmallInt, KindInt, KindBigInt, KindFloat, KindDecimal),
		KindDouble: {implicitFam: famNumeric, explicitFam: famCharString,
			explicit: []Kind{KindBoolean, KindTimestamp, KindLocalZonedTimestamp}},
		KindDate:                {implicit: []Kind{KindDate, KindTimestamp}, explicitFam: famTimestamp | famCharString},
		KindTime:                {implicit: []Kind{KindTime, KindTimestamp}, explicitFam: famTime | famTimestamp | famCharString},
		KindTimestamp:           {implicit: []Kind{KindTimestamp, KindLocalZonedTimestamp}, explicitFam: famDatetime | famCharString | famNumeric},
		KindLocalZonedTimestamp: {implicit: []Kind{KindLocalZonedTimestamp, KindTimestamp}, explicitFam: famDatetime | famCharString | famNumeric},
	}
)

func (r castRule) allows(from Kind, explicit bool) bool {
	for _, k := range r.implicit {
		if k == from {
			return true
		}
	}
	if r.implicitFam&families(from) != 0 {
		return true
	}
	if !explicit {
		return false
	}
	for _, k := range r.explicit {
		if k == from {
			return true
		}
	}
	return r.explicitFam&families(from) != 0
}

// SupportsCast reports whether Java's type system allows casting values of
// type from to type to (DataTypeCasts.supportsCast(from, to,
// allowExplicit)): implicit casts only (lossless widening and
// generalization) unless allowExplicit, which adds the SQL CAST
// specification (e.g. BIGINT to INT, INT to STRING, STRING to INT). A
// nullable from never casts to a NOT NULL to without allowExplicit. Types
// equal ignoring nullability always cast; otherwise only the kinds are
// compared (lengths, precisions and nested types are not). It says nothing
// about whether a value conversion exists (format/cast.Resolves).
func SupportsCast(from, to DataType, allowExplicit bool) bool {
	if from.Nullable && !to.Nullable && !allowExplicit {
		return false
	}
	f, t := from, to
	f.Nullable, t.Nullable = true, true
	if f.Equal(t) {
		return true
	}
	if from.Kind == to.Kind {
		return true // every kind casts implicitly from itself
	}
	r, ok := castRules[to.Kind]
	return ok && r.allows(from.Kind, allowExplicit)
}
