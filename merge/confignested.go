package merge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paimon-go/paimon/types"
)

// parseNestedAgg mirrors the factories of collect, merge_map,
// merge_map_with_keytime, nested_update and nested_partial_update
// (FieldCollectAggFactory, FieldMergeMapAggFactory,
// FieldMergeMapWithKeyTimeAggFactory, FieldNestedUpdateAggFactory,
// FieldNestedPartialUpdateAggFactory): the field type check and the
// per-field options nested-key, nested-key-null-strategy,
// nested-sequence-field, count-limit and ts-field.
func (c *Config) parseNestedAgg(options map[string]string, spec *aggSpec, key, field string) error {
	t, name := spec.typ, spec.name
	bad := func(want string) error {
		return fmt.Errorf("%w: %s=%s: data type for %s column %q must be %s", ErrInvalidOption, key, name, name, field, want)
	}
	switch name {
	case aggCollect:
		if t.Kind != types.KindArray {
			return bad("ARRAY")
		}
		if spec.distinct && !isConstructed(*t.Elem) && !isBinaryString(*t.Elem) && !hashableType(*t.Elem) {
			return fmt.Errorf("%w: %s=%s: distinct collect of %s elements", ErrUnsupported, key, name, t.Elem)
		}
	case aggMergeMap, aggMergeMapWithKeyTime:
		if t.Kind != types.KindMap {
			return bad("MAP")
		}
		if !hashableType(*t.Key) {
			return fmt.Errorf("%w: %s=%s: map keys of type %s", ErrUnsupported, key, name, t.Key)
		}
		if name == aggMergeMapWithKeyTime {
			return c.parseKeyTime(options, spec, key, field)
		}
	case aggNestedUpdate, aggNestedPartialUpdate:
		if t.Kind != types.KindArray || t.Elem.Kind != types.KindRow {
			return bad("ARRAY<ROW>")
		}
		return c.parseNestedRows(options, spec, key, field)
	}
	return nil
}

// hashableType reports the atomic types whose Java hashCode atomicKey reproduces.
func hashableType(t types.DataType) bool {
	switch t.Kind {
	case types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindFloat, types.KindDouble, types.KindChar, types.KindVarChar, types.KindBinary,
		types.KindVarBinary, types.KindDecimal, types.KindDate, types.KindTime, types.KindTimestamp,
		types.KindLocalZonedTimestamp:
		return true
	}
	return false
}

func (c *Config) parseKeyTime(options map[string]string, spec *aggSpec, key, field string) error {
	v := spec.typ.Value
	if v.Kind != types.KindRow {
		return fmt.Errorf("%w: %s=%s: value type of MAP for field %q must be ROW but was %s", ErrInvalidOption, key, spec.name, field, v)
	}
	if len(v.Fields) < 2 {
		return fmt.Errorf("%w: %s=%s: ROW type for field %q must have at least 2 fields, but found %d", ErrInvalidOption, key, spec.name, field, len(v.Fields))
	}
	spec.tsField = len(v.Fields) - 1
	tsKey := fieldKey(field, suffixMapTsField)
	if ts, ok := options[tsKey]; ok {
		spec.tsField = -1
		for i, f := range v.Fields {
			if f.Name == ts {
				spec.tsField = i
			}
		}
		if spec.tsField < 0 {
			return fmt.Errorf("%w: %s=%q: timestamp field not found in ROW type for field %q", ErrInvalidOption, tsKey, ts, field)
		}
	}
	if k := v.Fields[spec.tsField].Type.Kind; k != types.KindVarChar && k != types.KindChar {
		return fmt.Errorf("%w: %s: timestamp field %q of field %q must be a string, as Java reads it with getString",
			ErrInvalidOption, tsKey, v.Fields[spec.tsField].Name, field)
	}
	return nil
}

// nestedFieldList resolves a comma-separated list of element ROW field names.
func nestedFieldList(rt types.DataType, k, v string) ([]int, error) {
	var out []int
	for _, n := range strings.Split(v, ",") {
		n = strings.TrimSpace(n)
		idx := -1
		for i, f := range rt.Fields {
			if f.Name == n {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("%w: %s=%q: field %q is not in the nested row type", ErrInvalidOption, k, v, n)
		}
		out = append(out, idx)
	}
	return out, nil
}

func (c *Config) parseNestedRows(options map[string]string, spec *aggSpec, key, field string) error {
	rt := *spec.typ.Elem
	var err error
	nkKey := fieldKey(field, suffixNestedKey)
	if v, ok := options[nkKey]; ok {
		if spec.nestedKey, err = nestedFieldList(rt, nkKey, v); err != nil {
			return err
		}
		for _, i := range spec.nestedKey {
			if !hashableType(rt.Fields[i].Type) {
				return fmt.Errorf("%w: %s: nested key field %q of type %s", ErrUnsupported, nkKey, rt.Fields[i].Name, rt.Fields[i].Type)
			}
		}
	}
	nsKey := fieldKey(field, suffixNestedKeyNullStrategy)
	if v, ok := options[nsKey]; ok {
		switch s := strings.ToLower(v); s {
		case nestedNullMerge, nestedNullIgnore, nestedNullError:
			spec.nullStrategy = s
		default:
			return fmt.Errorf("%w: %s=%q: expected one of MERGE, IGNORE, ERROR", ErrInvalidOption, nsKey, v)
		}
		if len(spec.nestedKey) == 0 {
			return fmt.Errorf("%w: %s requires %s to be configured", ErrInvalidOption, nsKey, nkKey)
		}
	}
	if spec.name == aggNestedPartialUpdate {
		if len(spec.nestedKey) == 0 {
			return fmt.Errorf("%w: %s=%s: %s must be configured", ErrInvalidOption, key, spec.name, nkKey)
		}
		return nil
	}
	sqKey := fieldKey(field, suffixNestedSequenceField)
	if v, ok := options[sqKey]; ok {
		if spec.nestedSeq, err = nestedFieldList(rt, sqKey, v); err != nil {
			return err
		}
		if len(spec.nestedKey) == 0 {
			return fmt.Errorf("%w: %s requires %s to be configured", ErrInvalidOption, sqKey, nkKey)
		}
	}
	clKey := fieldKey(field, suffixCountLimit)
	if v, ok := options[clKey]; ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil {
			return fmt.Errorf("%w: %s=%q: expected an integer", ErrInvalidOption, clKey, v)
		}
		spec.countLimit = int(n)
	}
	return nil
}
