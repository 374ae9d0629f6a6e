package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// Option keys CreateTable interprets (CoreOptions).
const (
	// KeyPrimaryKey ("primary-key") names the primary key columns,
	// comma-separated, as an alternative to Schema.PrimaryKeys.
	KeyPrimaryKey = "primary-key"
	// KeyPartition ("partition") names the partition columns, comma-separated,
	// as an alternative to Schema.PartitionKeys.
	KeyPartition = "partition"
	// KeyPrimaryKeyNullable ("primary-key.nullable", default false) keeps
	// primary key columns nullable.
	KeyPrimaryKeyNullable = "primary-key.nullable"
	// KeyPath ("path") is the table location; a filesystem catalog derives it
	// and refuses it in CreateTable.
	KeyPath = "path"
)

// NewTableSchema builds schema 0 of a new table from s, as Java's Schema
// constructor and TableSchema.create do, and validates it:
//
//   - the "primary-key" / "partition" options become the key lists (an error
//     if the lists are given as well) and are removed from the options;
//   - duplicate column names, duplicate keys and keys naming missing columns
//     are rejected;
//   - primary key columns get the nullability of "primary-key.nullable"
//     (default NOT NULL);
//   - field ids are assigned with types.AssignFieldIDs (Schema.Builder order);
//   - the bucket rules of SchemaValidation.validateBucket, the
//     sequence.field rules of SchemaValidation.validateSequenceField and,
//     for partial-update tables, the rule that no primary key column is in a
//     sequence group (PartialUpdateMergeFunction's factory) apply.
//
// timeMillis is the creation time stored in the schema. Errors wrap
// ErrInvalidSchema (and schema.ErrInvalidSchema or schema.ErrInvalidOption
// where those packages rejected it).
func NewTableSchema(s Schema, timeMillis int64) (*schema.TableSchema, error) {
	if _, ok := s.Options[KeyPath]; ok {
		return nil, fmt.Errorf("%w: option %q cannot be set in a filesystem catalog", ErrInvalidSchema, KeyPath)
	}
	n, err := normalize(s)
	if err != nil {
		return nil, err
	}
	ts, err := schema.New(n.Fields, false, n.PartitionKeys, n.PrimaryKeys, n.Options, n.Comment, timeMillis)
	if err != nil {
		return nil, invalidSchema("", err)
	}
	if err := validateTable(ts); err != nil {
		return nil, err
	}
	return ts, nil
}

// normalize is Java's Schema constructor: it moves the "primary-key" and
// "partition" options into the key lists, rejects duplicate columns and keys
// naming missing columns, and gives primary key columns the nullability of
// "primary-key.nullable". Field ids are kept. Errors wrap ErrInvalidSchema.
func normalize(s Schema) (Schema, error) {
	opts := maps.Clone(s.Options)
	if opts == nil {
		opts = map[string]string{}
	}
	pk, err := keysFromOption(opts, KeyPrimaryKey, s.PrimaryKeys)
	if err != nil {
		return Schema{}, err
	}
	part, err := keysFromOption(opts, KeyPartition, s.PartitionKeys)
	if err != nil {
		return Schema{}, err
	}
	names := types.FieldNames(s.Fields)
	if d := duplicates(names); len(d) > 0 {
		return Schema{}, fmt.Errorf("%w: table columns %v contain duplicate fields %v", ErrInvalidSchema, names, d)
	}
	for _, keys := range []struct {
		what string
		list []string
	}{{"partition key", part}, {"primary key", pk}} {
		if d := duplicates(keys.list); len(d) > 0 {
			return Schema{}, fmt.Errorf("%w: %s %v contains duplicate columns %v", ErrInvalidSchema, keys.what, keys.list, d)
		}
		for _, k := range keys.list {
			if !slices.Contains(names, k) {
				return Schema{}, fmt.Errorf("%w: table columns %v do not include %s %q", ErrInvalidSchema, names, keys.what, k)
			}
		}
	}
	pkNullable, err := schema.Options(opts).Bool(KeyPrimaryKeyNullable, false)
	if err != nil {
		return Schema{}, invalidSchema("", err)
	}
	fields := slices.Clone(s.Fields)
	for i, f := range fields {
		if slices.Contains(pk, f.Name) && f.Type.Nullable != pkNullable {
			fields[i].Type = f.Type.WithNullable(pkNullable)
		}
	}
	return Schema{Fields: fields, PartitionKeys: part, PrimaryKeys: pk, Options: opts, Comment: s.Comment}, nil
}

// validateTable applies the parts of Java's SchemaValidation.validateTableSchema
// that concern the layout this package writes: the bucket rules and the
// sequence fields.
func validateTable(ts *schema.TableSchema) error {
	if err := validateBucket(ts); err != nil {
		return err
	}
	if err := validateCrossPartition(ts); err != nil {
		return err
	}
	if err := validateSequenceGroups(ts); err != nil {
		return err
	}
	if err := validateFirstRowDV(ts); err != nil {
		return err
	}
	if err := validateOptions(ts); err != nil {
		return err
	}
	return validateSequenceField(ts)
}

// validateFirstRowDV rejects the first-row merge engine together with
// deletion-vectors.enabled, as Java's SchemaValidation does: a first-row
// table never deletes old data, so it has no use for deletion vectors.
func validateFirstRowDV(ts *schema.TableSchema) error {
	if len(ts.PrimaryKeys) == 0 {
		return nil
	}
	me, err := ts.Options.MergeEngine()
	if err != nil || me != schema.MergeFirstRow {
		return nil
	}
	if dv, err := ts.Options.DeletionVectorsEnabled(); err == nil && dv {
		return fmt.Errorf("%w: merge-engine = first-row does not take deletion-vectors.enabled = true (first-row never deletes old data)", ErrInvalidSchema)
	}
	return nil
}

// validateSequenceGroups makes the check of Java's PartialUpdateMergeFunction
// factory, which SchemaValidation.validateMergeFunction creates for every new
// schema (at table creation and on every schema change): on a primary-key
// table with merge-engine = partial-update, no primary key column may be one
// of the fields of a sequence group, nor one of its ordering fields
// ("fields.<ordering fields>.sequence-group" = "<fields>", comma-separated).
// Java's message is "The sequence-group '<option key>' contains primary key
// field '<field>', which is not allowed. Primary key columns cannot be put in
// sequence-group."; the fields are checked before the ordering fields.
// Malformed sequence-group keys are left to the merge engine's own checks.
func validateSequenceGroups(ts *schema.TableSchema) error {
	const prefix, suffix = "fields.", ".sequence-group"
	if len(ts.PrimaryKeys) == 0 {
		return nil
	}
	if me, err := ts.Options.MergeEngine(); err != nil || me != schema.MergePartialUpdate {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(ts.Options)) {
		if !strings.HasPrefix(k, prefix) || !strings.HasSuffix(k, suffix) || len(k) <= len(prefix)+len(suffix) {
			continue
		}
		ordering := strings.Split(k[len(prefix):len(k)-len(suffix)], ",")
		for _, names := range [][]string{strings.Split(ts.Options[k], ","), ordering} {
			for _, f := range names {
				if slices.Contains(ts.PrimaryKeys, f) {
					return fmt.Errorf("%w: the sequence-group '%s' contains primary key field '%s', which is not allowed; primary key columns cannot be put in sequence-group",
						ErrInvalidSchema, k, f)
				}
			}
		}
	}
	return nil
}

// validateCrossPartition mirrors SchemaValidation: a primary key that does
// not include every partition field means cross-partition updates, which Java
// only allows with dynamic buckets (bucket = -1); with fixed buckets the same
// key could live in two partitions and never be merged.
func validateCrossPartition(ts *schema.TableSchema) error {
	if !ts.CrossPartitionUpdate() {
		return nil
	}
	n, err := ts.NumBuckets()
	if err != nil {
		return invalidSchema("", err)
	}
	if n != -1 {
		return fmt.Errorf("%w: primary key %v does not include all partition fields %v; that needs dynamic buckets (bucket = -1), not bucket = %d",
			ErrInvalidSchema, ts.PrimaryKeys, ts.PartitionKeys, n)
	}
	return nil
}

// validateSequenceField mirrors SchemaValidation.validateSequenceField.
func validateSequenceField(ts *schema.TableSchema) error {
	seq := ts.Options.SequenceField()
	if len(seq) == 0 {
		return nil
	}
	names := ts.FieldNames()
	for i, f := range seq {
		if !slices.Contains(names, f) {
			return fmt.Errorf("%w: sequence field %q can not be found in table schema", ErrInvalidSchema, f)
		}
		if _, ok := ts.Options["fields."+f+".aggregate-function"]; ok {
			return fmt.Errorf("%w: should not define aggregation on sequence field %q", ErrInvalidSchema, f)
		}
		if slices.Contains(seq[:i], f) {
			return fmt.Errorf("%w: sequence field %q is defined repeatedly", ErrInvalidSchema, f)
		}
	}
	if me, err := ts.Options.MergeEngine(); err == nil && me == schema.MergeFirstRow {
		return fmt.Errorf("%w: sequence field is not supported by the first-row merge engine", ErrInvalidSchema)
	}
	if ts.CrossPartitionUpdate() {
		return fmt.Errorf("%w: sequence.field cannot be used when the primary key %v does not include all partition fields %v",
			ErrInvalidSchema, ts.PrimaryKeys, ts.PartitionKeys)
	}
	return nil
}

// keysFromOption is Schema.normalizePrimaryKeys / normalizePartitionKeys.
func keysFromOption(opts map[string]string, key string, given []string) ([]string, error) {
	v, ok := opts[key]
	if !ok {
		return slices.Clone(given), nil
	}
	if len(given) > 0 {
		return nil, fmt.Errorf("%w: cannot define %q both as keys and as table option", ErrInvalidSchema, key)
	}
	delete(opts, key)
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

func duplicates(names []string) []string {
	seen := map[string]int{}
	var out []string
	for _, n := range names {
		seen[n]++
		if seen[n] == 2 {
			out = append(out, n)
		}
	}
	return out
}

// validateBucket mirrors SchemaValidation.validateBucket.
func validateBucket(ts *schema.TableSchema) error {
	bucket, err := ts.NumBuckets()
	if err != nil {
		return invalidSchema("", err)
	}
	switch {
	case bucket == -1:
		if _, ok := ts.Options.Get(schema.KeyBucketKey); ok {
			return fmt.Errorf("%w: cannot define 'bucket-key' with bucket = -1", ErrInvalidSchema)
		}
		if _, set, _ := ts.Options.FullCompactionDeltaCommits(); set && len(ts.PrimaryKeys) == 0 {
			return fmt.Errorf("%w: append tables of unaware bucket do not support 'full-compaction.delta-commits'", ErrInvalidSchema)
		}
	case bucket < 1 && !(bucket == -2 && len(ts.PrimaryKeys) > 0):
		return fmt.Errorf("%w: the number of buckets needs to be greater than 0, got %d", ErrInvalidSchema, bucket)
	default:
		if len(ts.PrimaryKeys) == 0 && len(ts.BucketKeys()) == 0 {
			return fmt.Errorf("%w: a 'bucket-key' is required for bucketed append tables", ErrInvalidSchema)
		}
		for _, f := range ts.BucketKeyFields() {
			switch f.Type.Kind {
			case types.KindArray, types.KindMultiset, types.KindMap, types.KindRow:
				return fmt.Errorf("%w: nested type can not be in bucket-key: %s", ErrInvalidSchema, f.Name)
			}
		}
	}
	return nil
}
