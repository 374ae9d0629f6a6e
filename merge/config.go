package merge

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/paimon-go/paimon/types"
)

// Engine is the merge engine of a primary-key table, the value of option
// "merge-engine" (Java CoreOptions.MergeEngine).
type Engine string

// The merge engines. Option values are matched case-insensitively, as Java's
// OptionsUtils.convertToEnum does.
const (
	// Deduplicate keeps the record with the highest sequence (the default).
	Deduplicate Engine = "deduplicate"
	// PartialUpdate overwrites earlier non-null fields with later ones.
	PartialUpdate Engine = "partial-update"
	// Aggregation combines the records of a key with per-field aggregate functions.
	Aggregation Engine = "aggregation"
	// FirstRow keeps the record with the lowest sequence.
	FirstRow Engine = "first-row"
)

// Option keys read by NewConfig (Java CoreOptions).
const (
	KeyMergeEngine                 = "merge-engine"
	KeyIgnoreDelete                = "ignore-delete"
	KeySequenceField               = "sequence.field"
	KeySequenceFieldSortOrder      = "sequence.field.sort-order"
	KeyPartialUpdateRemoveOnDelete = "partial-update.remove-record-on-delete"
	KeyPartialUpdateRemoveOnSeqGrp = "partial-update.remove-record-on-sequence-group"
	KeyAggregationRemoveOnDelete   = "aggregation.remove-record-on-delete"
	KeyFieldsDefaultAggregateFunc  = "fields.default-aggregate-function"
)

// Per-field keys have the form "fields.<field>.<suffix>"; sequence groups
// "fields.<f1>,<f2>.sequence-group" (CoreOptions.FIELDS_PREFIX and friends).
const (
	fieldsPrefix                    = "fields"
	suffixAggregateFunction         = "aggregate-function"
	suffixIgnoreRetract             = "ignore-retract"
	suffixSequenceGroup             = "sequence-group"
	suffixListAggDelimiter          = "list-agg-delimiter"
	suffixDistinct                  = "distinct"
	suffixNestedKey                 = "nested-key"
	suffixNestedKeyNullStrategy     = "nested-key-null-strategy"
	suffixNestedSequenceField       = "nested-sequence-field"
	suffixCountLimit                = "count-limit"
	suffixMapTsField                = "ts-field"
	defaultAggregateFunctionSegment = "default-aggregate-function"
)

// ignoreDeleteFallbackKeys are the legacy aliases of "ignore-delete", in the
// order Java's Options consults them when the main key is absent.
var ignoreDeleteFallbackKeys = [...]string{
	"first-row.ignore-delete",
	"deduplicate.ignore-delete",
	"partial-update.ignore-delete",
}

// Aggregate function names (Java FieldAggregatorFactory identifiers).
const (
	aggSum               = "sum"
	aggProduct           = "product"
	aggMin               = "min"
	aggMax               = "max"
	aggLastValue         = "last_value"
	aggLastNonNullValue  = "last_non_null_value"
	aggFirstValue        = "first_value"
	aggFirstNonNullValue = "first_non_null_value"
	aggFirstNotNullValue = "first_not_null_value" // legacy name of first_non_null_value
	aggListAgg           = "listagg"
	aggBoolAnd           = "bool_and"
	aggBoolOr            = "bool_or"
	aggPrimaryKey        = "primary-key"

	aggCollect             = "collect"
	aggMergeMap            = "merge_map"
	aggMergeMapWithKeyTime = "merge_map_with_keytime"
	aggNestedUpdate        = "nested_update"
	aggNestedPartialUpdate = "nested_partial_update"
	aggRbm32               = "rbm32"
	aggRbm64               = "rbm64"
	aggHllSketch           = "hll_sketch"
	aggThetaSketch         = "theta_sketch"
)

// unimplementedAggs are aggregate functions Java registers that this package
// does not implement, with the reason; using one yields ErrUnsupported.
var unimplementedAggs = map[string]string{}

// aggSpec is the aggregate function of one field and its per-field options.
type aggSpec struct {
	name          string // "" = none (partial-update fields without a function)
	ignoreRetract bool   // fields.<f>.ignore-retract
	delimiter     string // fields.<f>.list-agg-delimiter, default ","
	distinct      bool   // fields.<f>.distinct

	typ          types.DataType // the field type
	nestedKey    []int          // fields.<f>.nested-key: element ROW field indexes
	nestedSeq    []int          // fields.<f>.nested-sequence-field: element ROW field indexes
	nullStrategy string         // fields.<f>.nested-key-null-strategy, lower case
	countLimit   int            // fields.<f>.count-limit, default math.MaxInt32
	tsField      int            // merge_map_with_keytime: index of the timestamp field of the value ROW
}

// seqGroup is one partial-update sequence group: its ordering fields
// (table field indexes, compared ascending, nulls first).
type seqGroup struct {
	key      string // option key, for messages
	ordering []int
}

// Config is the validated merge configuration of one primary-key table: the
// merge engine and all options that steer it, resolved against the table's
// row type. Build it once per table (schema) with NewConfig; it is immutable
// and safe for concurrent use by many Mergers.
//
// It mirrors what Java's MergeFunctionFactory implementations
// (DeduplicateMergeFunction, PartialUpdateMergeFunction,
// AggregateMergeFunction, FirstRowMergeFunction) read from CoreOptions, plus
// UserDefinedSeqComparator for "sequence.field".
type Config struct {
	engine        Engine
	ignoreDelete  bool
	seqFields     []int // table field indexes of sequence.field, in option order
	seqDescending bool

	fields []types.DataField
	byName map[string]int
	isPK   []bool

	// partial-update
	puRemoveOnDelete  bool
	puRemoveOnSeqGrp  []int // ordering-field indexes of remove-record-on-sequence-group
	groups            []seqGroup
	groupOf           []int // per field: index into groups, or -1
	fieldSeqEnabled   bool  // any sequence group defined
	aggRemoveOnDelete bool  // aggregation.remove-record-on-delete

	// per field aggregate function (partial-update: may be empty; aggregation: always set)
	aggs []aggSpec
}

// Engine returns the merge engine.
func (c *Config) Engine() Engine { return c.engine }

// IgnoreDelete reports option "ignore-delete" (or one of its legacy aliases).
func (c *Config) IgnoreDelete() bool { return c.ignoreDelete }

// SequenceFields returns the field names of option "sequence.field", in order.
func (c *Config) SequenceFields() []string {
	out := make([]string, len(c.seqFields))
	for i, f := range c.seqFields {
		out[i] = c.fields[f].Name
	}
	return out
}

// SequenceDescending reports "sequence.field.sort-order" = descending.
func (c *Config) SequenceDescending() bool { return c.seqDescending }

// Fields returns the table row type the config was built for.
func (c *Config) Fields() []types.DataField { return c.fields }

// NewConfig validates the table options that steer merging and resolves them
// against the table's row type (all fields, in schema order) and primary key
// field names (full primary key, partition keys included).
//
// Keys read: merge-engine, ignore-delete (with its legacy aliases
// first-row.ignore-delete, deduplicate.ignore-delete,
// partial-update.ignore-delete), sequence.field, sequence.field.sort-order,
// partial-update.remove-record-on-delete,
// partial-update.remove-record-on-sequence-group,
// aggregation.remove-record-on-delete, fields.default-aggregate-function and
// fields.<f>.{aggregate-function, ignore-retract, sequence-group,
// list-agg-delimiter, distinct}. Other keys are ignored.
//
// Errors wrap ErrInvalidOption (malformed value, unknown field, contradictory
// options, an aggregate function that does not fit its field type) or
// ErrUnsupported (an aggregate function this package does not implement), and
// name the offending key. The checks mirror Java's SchemaValidation and the
// merge function factories, so a table Java refuses to open is refused here
// too.
func NewConfig(options map[string]string, fields []types.DataField, primaryKeys []string) (*Config, error) {
	c := &Config{
		fields:  fields,
		byName:  make(map[string]int, len(fields)),
		isPK:    make([]bool, len(fields)),
		groupOf: make([]int, len(fields)),
		aggs:    make([]aggSpec, len(fields)),
	}
	for i, f := range fields {
		c.byName[f.Name] = i
		c.groupOf[i] = -1
	}
	for _, pk := range primaryKeys {
		i, ok := c.byName[pk]
		if !ok {
			return nil, fmt.Errorf("%w: primary key field %q is not in the row type", ErrInvalidOption, pk)
		}
		c.isPK[i] = true
	}

	// merge-engine
	c.engine = Deduplicate
	if v, ok := options[KeyMergeEngine]; ok {
		switch strings.ToLower(v) {
		case string(Deduplicate), string(PartialUpdate), string(Aggregation), string(FirstRow):
			c.engine = Engine(strings.ToLower(v))
		default:
			return nil, fmt.Errorf("%w: %s=%q: expected one of deduplicate, partial-update, aggregation, first-row",
				ErrInvalidOption, KeyMergeEngine, v)
		}
	}

	var err error
	if c.ignoreDelete, err = boolOption(options, KeyIgnoreDelete, ignoreDeleteFallbackKeys[:]...); err != nil {
		return nil, err
	}
	if c.aggRemoveOnDelete, err = boolOption(options, KeyAggregationRemoveOnDelete); err != nil {
		return nil, err
	}
	if err := c.parseSequenceField(options); err != nil {
		return nil, err
	}
	if err := c.validateFieldsPrefix(options); err != nil {
		return nil, err
	}

	switch c.engine {
	case PartialUpdate:
		if err := c.parsePartialUpdate(options); err != nil {
			return nil, err
		}
	case Aggregation:
		if err := c.parseAggregation(options); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// boolOption reads a boolean option the way Java's OptionsUtils.convertToBoolean
// does ("true"/"false", case-insensitive), consulting fallback keys in order
// when the main key is absent. Absent means false.
func boolOption(options map[string]string, key string, fallback ...string) (bool, error) {
	v, ok := options[key]
	usedKey := key
	if !ok {
		for _, fk := range fallback {
			if v, ok = options[fk]; ok {
				usedKey = fk
				break
			}
		}
	}
	if !ok {
		return false, nil
	}
	switch strings.ToUpper(v) {
	case "TRUE":
		return true, nil
	case "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("%w: %s=%q: expected true or false", ErrInvalidOption, usedKey, v)
}

func fieldKey(field, suffix string) string { return fieldsPrefix + "." + field + "." + suffix }

// parseSequenceField mirrors CoreOptions.sequenceField and
// SchemaValidation.validateSequenceField.
func (c *Config) parseSequenceField(options map[string]string) error {
	if v, ok := options[KeySequenceFieldSortOrder]; ok {
		switch strings.ToLower(v) {
		case "ascending":
		case "descending":
			c.seqDescending = true
		default:
			return fmt.Errorf("%w: %s=%q: expected ascending or descending", ErrInvalidOption, KeySequenceFieldSortOrder, v)
		}
	}
	v, ok := options[KeySequenceField]
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		i, ok := c.byName[name]
		if !ok {
			return fmt.Errorf("%w: %s=%q: sequence field %q can not be found in table schema", ErrInvalidOption, KeySequenceField, v, name)
		}
		if _, has := options[fieldKey(name, suffixAggregateFunction)]; has {
			return fmt.Errorf("%w: %s: should not define aggregation on sequence field %q", ErrInvalidOption, fieldKey(name, suffixAggregateFunction), name)
		}
		if seen[name] {
			return fmt.Errorf("%w: %s=%q: sequence field %q is defined repeatedly", ErrInvalidOption, KeySequenceField, v, name)
		}
		seen[name] = true
		if !comparableType(c.fields[i].Type) {
			return fmt.Errorf("%w: %s: sequence field %q has a type that cannot be ordered", ErrUnsupported, KeySequenceField, name)
		}
		c.seqFields = append(c.seqFields, i)
	}
	if c.engine == FirstRow {
		return fmt.Errorf("%w: %s: do not support use sequence field on first-row merge engine", ErrInvalidOption, KeySequenceField)
	}
	return nil
}

// validateFieldsPrefix mirrors SchemaValidation.validateFieldsPrefix: the
// field list of every "fields.<f1,f2>.<suffix>" key must name table fields.
func (c *Config) validateFieldsPrefix(options map[string]string) error {
	for _, k := range sortedKeys(options) {
		if !strings.HasPrefix(k, fieldsPrefix+".") {
			continue
		}
		segs := strings.Split(k, ".")
		for _, f := range strings.Split(segs[1], ",") {
			if f == defaultAggregateFunctionSegment {
				continue
			}
			if _, ok := c.byName[f]; !ok {
				return fmt.Errorf("%w: %s: field %q can not be found in table schema", ErrInvalidOption, k, f)
			}
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parsePartialUpdate mirrors PartialUpdateMergeFunction.Factory.
func (c *Config) parsePartialUpdate(options map[string]string) error {
	var err error
	if c.puRemoveOnDelete, err = boolOption(options, KeyPartialUpdateRemoveOnDelete); err != nil {
		return err
	}
	removeOnSeqGrp, hasRemoveOnSeqGrp := options[KeyPartialUpdateRemoveOnSeqGrp]

	groupByOrdering := map[string]int{} // ordering field name -> field index
	var allSequenceFields []string
	protected := map[string]bool{}
	for _, k := range sortedKeys(options) {
		if !strings.HasPrefix(k, fieldsPrefix) || !strings.HasSuffix(k, suffixSequenceGroup) {
			continue
		}
		if !strings.HasPrefix(k, fieldsPrefix+".") || !strings.HasSuffix(k, "."+suffixSequenceGroup) ||
			len(k) <= len(fieldsPrefix)+len(suffixSequenceGroup)+2 {
			return fmt.Errorf("%w: %s: invalid sequence-group option", ErrInvalidOption, k)
		}
		orderingNames := strings.Split(k[len(fieldsPrefix)+1:len(k)-len(suffixSequenceGroup)-1], ",")
		g := seqGroup{key: k}
		for _, name := range orderingNames {
			i, ok := c.byName[name]
			if !ok {
				return fmt.Errorf("%w: %s: field %q can not be found in table schema", ErrInvalidOption, k, name)
			}
			if !comparableType(c.fields[i].Type) {
				return fmt.Errorf("%w: %s: field %q cannot be used as a sequence-group ordering field", ErrInvalidOption, k, name)
			}
			g.ordering = append(g.ordering, i)
		}
		gi := len(c.groups)
		c.groups = append(c.groups, g)
		for _, name := range strings.Split(options[k], ",") {
			i, ok := c.byName[name]
			if !ok {
				return fmt.Errorf("%w: %s=%q: field %q can not be found in table schema", ErrInvalidOption, k, options[k], name)
			}
			if c.isPK[i] {
				return fmt.Errorf("%w: the sequence-group %q contains primary key field %q, which is not allowed", ErrInvalidOption, k, name)
			}
			if c.groupOf[i] >= 0 {
				return fmt.Errorf("%w: %s: field %q is defined repeatedly by multiple groups", ErrInvalidOption, k, name)
			}
			c.groupOf[i] = gi
			protected[name] = true
		}
		for _, i := range g.ordering {
			name := c.fields[i].Name
			if c.isPK[i] {
				return fmt.Errorf("%w: the sequence-group %q contains primary key field %q, which is not allowed", ErrInvalidOption, k, name)
			}
			allSequenceFields = append(allSequenceFields, name)
			// Java's map put overwrites silently when an ordering field is reused.
			c.groupOf[i] = gi
			groupByOrdering[name] = i
		}
	}
	c.fieldSeqEnabled = len(c.groups) > 0

	// aggregators (getAggFuncName, partial-update flavour)
	defaultAgg, hasDefault := options[KeyFieldsDefaultAggregateFunc]
	for i, f := range c.fields {
		if slices.Contains(allSequenceFields, f.Name) {
			continue
		}
		var name string
		if c.isPK[i] {
			name = aggPrimaryKey
		} else if v, ok := options[fieldKey(f.Name, suffixAggregateFunction)]; ok {
			name = v
		} else if hasDefault {
			name = defaultAgg
		} else {
			continue
		}
		if !c.isPK[i] && name != aggLastNonNullValue && !protected[f.Name] {
			return fmt.Errorf("%w: %s: must use sequence group for aggregation functions but not found for field %q",
				ErrInvalidOption, aggKeyFor(options, f.Name), f.Name)
		}
		spec, err := c.newAggSpec(options, i, name)
		if err != nil {
			return err
		}
		c.aggs[i] = spec
	}

	if c.puRemoveOnDelete && c.ignoreDelete {
		return fmt.Errorf("%w: %s and %s have conflicting behavior so should not be enabled at the same time",
			ErrInvalidOption, KeyIgnoreDelete, KeyPartialUpdateRemoveOnDelete)
	}
	if hasRemoveOnSeqGrp && c.ignoreDelete {
		return fmt.Errorf("%w: %s and %s have conflicting behavior so should not be enabled at the same time",
			ErrInvalidOption, KeyIgnoreDelete, KeyPartialUpdateRemoveOnSeqGrp)
	}
	if c.puRemoveOnDelete && len(c.groups) > 0 {
		return fmt.Errorf("%w: %s and %s have conflicting behavior so should not be enabled at the same time",
			ErrInvalidOption, suffixSequenceGroup, KeyPartialUpdateRemoveOnDelete)
	}
	if hasRemoveOnSeqGrp {
		for _, name := range strings.Split(removeOnSeqGrp, ",") {
			i, ok := groupByOrdering[name]
			if !ok {
				return fmt.Errorf("%w: %s=%q: field %q must be part of sequence groups",
					ErrInvalidOption, KeyPartialUpdateRemoveOnSeqGrp, removeOnSeqGrp, name)
			}
			c.puRemoveOnSeqGrp = append(c.puRemoveOnSeqGrp, i)
		}
	}
	return nil
}

// aggKeyFor names the key that set a field's aggregate function, for messages.
func aggKeyFor(options map[string]string, field string) string {
	k := fieldKey(field, suffixAggregateFunction)
	if _, ok := options[k]; ok {
		return k
	}
	return KeyFieldsDefaultAggregateFunc
}

// parseAggregation mirrors AggregateMergeFunction.Factory.create and
// getAggFuncName: sequence fields use last_value, primary keys primary-key,
// then fields.<f>.aggregate-function, fields.default-aggregate-function,
// else last_non_null_value.
func (c *Config) parseAggregation(options map[string]string) error {
	defaultAgg, hasDefault := options[KeyFieldsDefaultAggregateFunc]
	for i, f := range c.fields {
		var name string
		switch v, ok := options[fieldKey(f.Name, suffixAggregateFunction)]; {
		case slices.Contains(c.seqFields, i):
			name = aggLastValue
		case c.isPK[i]:
			name = aggPrimaryKey
		case ok:
			name = v
		case hasDefault:
			name = defaultAgg
		default:
			name = aggLastNonNullValue
		}
		spec, err := c.newAggSpec(options, i, name)
		if err != nil {
			return err
		}
		c.aggs[i] = spec
	}
	return nil
}

// newAggSpec mirrors FieldAggregatorFactory.create: resolve the function,
// check it fits the field type, and read its per-field options.
func (c *Config) newAggSpec(options map[string]string, field int, name string) (aggSpec, error) {
	f := c.fields[field]
	key := aggKeyFor(options, f.Name)
	spec := aggSpec{name: name, delimiter: ",", typ: f.Type, countLimit: math.MaxInt32, nullStrategy: nestedNullMerge}
	if name == aggFirstNotNullValue {
		spec.name = aggFirstNonNullValue
	}
	t := f.Type
	switch spec.name {
	case aggSum, aggProduct:
		if !numericType(t) {
			return spec, fmt.Errorf("%w: %s=%s: data type for %s column %q must be numeric", ErrInvalidOption, key, name, name, f.Name)
		}
	case aggMin, aggMax:
		if !comparableType(t) {
			return spec, fmt.Errorf("%w: %s=%s: data type for %s column %q must be comparable", ErrInvalidOption, key, name, name, f.Name)
		}
	case aggListAgg:
		if t.Kind != types.KindVarChar || t.Length != types.MaxLength {
			return spec, fmt.Errorf("%w: %s=%s: data type for list agg column %q must be STRING (unbounded VARCHAR)", ErrInvalidOption, key, name, f.Name)
		}
	case aggBoolAnd, aggBoolOr:
		if t.Kind != types.KindBoolean {
			return spec, fmt.Errorf("%w: %s=%s: data type for %s column %q must be BOOLEAN", ErrInvalidOption, key, name, name, f.Name)
		}
	case aggLastValue, aggLastNonNullValue, aggFirstValue, aggFirstNonNullValue, aggPrimaryKey:
	case aggCollect, aggMergeMap, aggMergeMapWithKeyTime, aggNestedUpdate, aggNestedPartialUpdate:
		if err := c.parseNestedAgg(options, &spec, key, f.Name); err != nil {
			return spec, err
		}
	case aggRbm32, aggRbm64, aggHllSketch, aggThetaSketch:
		if t.Kind != types.KindVarBinary {
			return spec, fmt.Errorf("%w: %s=%s: data type for %s column %q must be VARBINARY", ErrInvalidOption, key, name, name, f.Name)
		}
		if why, ok := unimplementedAggs[name]; ok {
			return spec, fmt.Errorf("%w: %s=%s: aggregate function %q is not implemented: %s", ErrUnsupported, key, name, name, why)
		}
	default:
		return spec, fmt.Errorf("%w: %s=%s: unsupported aggregation %q or misspelled aggregate function", ErrInvalidOption, key, name, name)
	}
	var err error
	irKey := fieldKey(f.Name, suffixIgnoreRetract)
	if spec.ignoreRetract, err = boolOption(options, irKey); err != nil {
		return spec, err
	}
	if c.aggRemoveOnDelete && spec.ignoreRetract {
		return spec, fmt.Errorf("%w: %s and %s have conflicting behavior so should not be enabled at the same time",
			ErrInvalidOption, KeyAggregationRemoveOnDelete, irKey)
	}
	if v, ok := options[fieldKey(f.Name, suffixListAggDelimiter)]; ok {
		spec.delimiter = v
	}
	if spec.distinct, err = boolOption(options, fieldKey(f.Name, suffixDistinct)); err != nil {
		return spec, err
	}
	return spec, nil
}

// numericType mirrors DataTypeFamily.NUMERIC.
func numericType(t types.DataType) bool {
	switch t.Kind {
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindFloat, types.KindDouble, types.KindDecimal:
		return true
	}
	return false
}

// comparableType mirrors TypeCheckUtils.isComparable (atomic types only).
func comparableType(t types.DataType) bool {
	switch t.Kind {
	case types.KindMap, types.KindMultiset, types.KindRow, types.KindArray,
		types.KindVariant, types.KindBlob, types.KindInvalid:
		return false
	}
	return true
}
