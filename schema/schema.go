// Package schema reads and writes Paimon table schema files
// (<table>/schema/schema-<id>) and exposes typed table options with Java's
// defaults.
//
// It mirrors apache/paimon: paimon-api/src/main/java/org/apache/paimon/schema/
// TableSchema.java and SchemaSerializer.java, paimon-core .../schema/
// SchemaManager.java and paimon-api .../CoreOptions.java. The JSON layout is
// described in docs/paimon-format.md section 2.
//
// # Errors
//
// Decode returns errors wrapping ErrCorrupt (not JSON, wrong shapes, bad
// types) or ErrInvalidSchema (keys naming missing fields and the other checks
// of Java's TableSchema constructor). Options getters return errors wrapping
// ErrInvalidOption. Manager methods wrap the file layer's errors, so
// errors.Is(err, fs.ErrNotExist) / fs.ErrExist (= fileio.ErrNotExist /
// fileio.ErrExist) work.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/paimon-go/paimon/types"
)

// Sentinel errors.
var (
	// ErrCorrupt marks schema bytes that are not a valid schema JSON document.
	ErrCorrupt = errors.New("schema: corrupt schema file")
	// ErrInvalidSchema marks a schema whose keys or fields are inconsistent.
	ErrInvalidSchema = errors.New("schema: invalid table schema")
)

// Schema file format versions (TableSchema.PAIMON_07_VERSION, PAIMON_08_VERSION,
// CURRENT_VERSION).
const (
	Version07      = 1
	Version08      = 2
	CurrentVersion = 3
)

// TableSchema is one version of a table's schema: the content of
// schema/schema-<ID> (Java TableSchema).
type TableSchema struct {
	// Version is the file format version: 3 for Paimon 0.9+, 1 when absent.
	Version int
	// ID is the schema id, equal to the file name suffix.
	ID int64
	// Fields are the table's columns with their field ids.
	Fields []types.DataField
	// HighestFieldID is the largest field id ever used (deleted columns
	// included), so new columns get HighestFieldID+1.
	HighestFieldID int
	// PartitionKeys and PrimaryKeys name fields, in key order.
	PartitionKeys []string
	PrimaryKeys   []string
	// Options holds the explicitly set table options (defaults are not
	// materialised, except the old-version rules applied by Decode).
	Options Options
	// Comment is the table comment; "" when absent.
	Comment string
	// TimeMillis is the creation time in epoch milliseconds; 0 when absent.
	TimeMillis int64

	// optionOrder is the key order of "options" as decoded, so that Encode
	// reproduces a decoded file exactly; other keys follow sorted.
	optionOrder []string
}

type schemaJSON struct {
	Version        *int              `json:"version"`
	ID             *int64            `json:"id"`
	Fields         []json.RawMessage `json:"fields"`
	HighestFieldID *int              `json:"highestFieldId"`
	PartitionKeys  []string          `json:"partitionKeys"`
	PrimaryKeys    []string          `json:"primaryKeys"`
	Options        json.RawMessage   `json:"options"`
	Comment        *string           `json:"comment"`
	TimeMillis     *int64            `json:"timeMillis"`
}

// Decode parses a schema file (SchemaSerializer.deserialize). A missing
// "version" means 1; for version 1 an absent "bucket" option is set to "1",
// and for version <= 2 an absent "file.format" is set to "orc", as Java does
// (the defaults of those releases). A missing "highestFieldId" is computed
// from the fields; missing options are empty; a missing "timeMillis" is 0.
// "id", "fields", "partitionKeys" and "primaryKeys" are required. The result is checked
// with Validate.
//
// Errors wrap fileio.ErrTooLarge for data over MaxFileSize.
func Decode(data []byte) (*TableSchema, error) {
	if err := checkSize(data); err != nil {
		return nil, err
	}
	var raw schemaJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if raw.ID == nil {
		return nil, fmt.Errorf("%w: missing \"id\"", ErrCorrupt)
	}
	if raw.Fields == nil {
		return nil, fmt.Errorf("%w: missing \"fields\"", ErrCorrupt)
	}
	// Java's SchemaSerializer dereferences these without a check, so a file
	// without them is damaged; reading it as "no keys" would silently turn a
	// primary-key table into an append table.
	if raw.PartitionKeys == nil {
		return nil, fmt.Errorf("%w: missing \"partitionKeys\"", ErrCorrupt)
	}
	if raw.PrimaryKeys == nil {
		return nil, fmt.Errorf("%w: missing \"primaryKeys\"", ErrCorrupt)
	}
	s := &TableSchema{Version: Version07, ID: *raw.ID, Options: Options{}}
	if raw.Version != nil {
		s.Version = *raw.Version
	}
	for _, f := range raw.Fields {
		field, err := types.ParseFieldJSON(f)
		if err != nil {
			return nil, fmt.Errorf("%w: schema %d: %w", ErrCorrupt, s.ID, err)
		}
		s.Fields = append(s.Fields, field)
	}
	if raw.HighestFieldID != nil {
		s.HighestFieldID = *raw.HighestFieldID
	} else {
		s.HighestFieldID = types.HighestFieldID(s.Fields)
	}
	s.PartitionKeys = nonNil(raw.PartitionKeys)
	s.PrimaryKeys = nonNil(raw.PrimaryKeys)
	if len(raw.Options) > 0 && !bytes.Equal(bytes.TrimSpace(raw.Options), []byte("null")) {
		keys, values, err := decodeStringObject(raw.Options)
		if err != nil {
			return nil, fmt.Errorf("%w: schema %d options: %v", ErrCorrupt, s.ID, err)
		}
		for i, k := range keys {
			if _, dup := s.Options[k]; !dup {
				s.optionOrder = append(s.optionOrder, k)
			}
			s.Options[k] = values[i]
		}
	}
	if s.Version <= Version07 {
		if _, ok := s.Options[KeyBucket]; !ok {
			s.Options[KeyBucket] = "1"
		}
	}
	if s.Version <= Version08 {
		if _, ok := s.Options[KeyFileFormat]; !ok {
			s.Options[KeyFileFormat] = "orc"
		}
	}
	if raw.Comment != nil {
		s.Comment = *raw.Comment
	}
	if raw.TimeMillis != nil {
		s.TimeMillis = *raw.TimeMillis
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// decodeStringObject reads a JSON object in document order. Values must be
// strings, numbers or booleans (Jackson asText renders them as text).
func decodeStringObject(data []byte) ([]string, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("expected an object")
	}
	var keys, values []string
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var value string
		switch v := vt.(type) {
		case string:
			value = v
		case json.Number:
			value = v.String()
		case bool:
			value = strconv.FormatBool(v)
		default:
			return nil, nil, fmt.Errorf("option %q: value is not a string", key)
		}
		keys = append(keys, key)
		values = append(values, value)
	}
	return keys, values, nil
}

// Encode writes s as Java's SchemaSerializer does, pretty-printed like
// Jackson ("key" : value, two-space indent, see PrettyJSON): version, id,
// fields, highestFieldId, partitionKeys, primaryKeys, options, comment (only
// when non-empty), timeMillis. Options keep the order they were decoded in;
// keys added since follow in sorted order.
func (s *TableSchema) Encode() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"version":`)
	b.WriteString(strconv.Itoa(s.Version))
	b.WriteString(`,"id":`)
	b.WriteString(strconv.FormatInt(s.ID, 10))
	b.WriteString(`,"fields":[`)
	for i, f := range s.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		raw, err := f.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%w: schema %d: %w", ErrInvalidSchema, s.ID, err)
		}
		b.Write(raw)
	}
	b.WriteString(`],"highestFieldId":`)
	b.WriteString(strconv.Itoa(s.HighestFieldID))
	b.WriteString(`,"partitionKeys":`)
	writeStringArray(&b, s.PartitionKeys)
	b.WriteString(`,"primaryKeys":`)
	writeStringArray(&b, s.PrimaryKeys)
	b.WriteString(`,"options":{`)
	for i, k := range s.orderedOptionKeys() {
		if i > 0 {
			b.WriteByte(',')
		}
		types.AppendJSONString(&b, k)
		b.WriteByte(':')
		types.AppendJSONString(&b, s.Options[k])
	}
	b.WriteByte('}')
	if s.Comment != "" {
		b.WriteString(`,"comment":`)
		types.AppendJSONString(&b, s.Comment)
	}
	b.WriteString(`,"timeMillis":`)
	b.WriteString(strconv.FormatInt(s.TimeMillis, 10))
	b.WriteByte('}')
	return PrettyJSON(b.Bytes())
}

func (s *TableSchema) orderedOptionKeys() []string {
	keys := make([]string, 0, len(s.Options))
	seen := make(map[string]bool, len(s.Options))
	for _, k := range s.optionOrder {
		if _, ok := s.Options[k]; ok && !seen[k] {
			keys = append(keys, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range s.Options {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

func writeStringArray(b *bytes.Buffer, xs []string) {
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		types.AppendJSONString(b, x)
	}
	b.WriteByte(']')
}

// Validate applies the checks of Java's TableSchema constructor and a few
// structural ones: field names and ids unique (ids across nesting levels),
// every field type valid, HighestFieldID >= every field id, partition and
// primary keys name existing fields, primary keys not all partition keys,
// bucket keys existing, not partition keys and (for primary-key tables)
// part of the primary key, "bucket" an integer. Errors wrap ErrInvalidSchema.
func (s *TableSchema) Validate() error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: schema %d: %s", ErrInvalidSchema, s.ID, fmt.Sprintf(format, args...))
	}
	names := make(map[string]bool, len(s.Fields))
	for _, f := range s.Fields {
		if names[f.Name] {
			return fail("duplicate field name %q", f.Name)
		}
		names[f.Name] = true
		if err := f.Type.Validate(); err != nil {
			return fail("field %q: %v", f.Name, err)
		}
	}
	ids := map[int]string{}
	var dup error
	var walk func(fs []types.DataField)
	var walkType func(t *types.DataType)
	walk = func(fs []types.DataField) {
		for _, f := range fs {
			if other, ok := ids[f.ID]; ok && dup == nil {
				dup = fail("field id %d used by %q and %q", f.ID, other, f.Name)
			}
			ids[f.ID] = f.Name
			walkType(&f.Type)
		}
	}
	walkType = func(t *types.DataType) {
		if t == nil {
			return
		}
		walkType(t.Elem)
		walkType(t.Key)
		walkType(t.Value)
		walk(t.Fields)
	}
	walk(s.Fields)
	if dup != nil {
		return dup
	}
	if h := types.HighestFieldID(s.Fields); h > s.HighestFieldID {
		return fail("highestFieldId %d is below field id %d", s.HighestFieldID, h)
	}
	for _, k := range s.PartitionKeys {
		if !names[k] {
			return fail("partition key %q is not a field", k)
		}
	}
	for _, k := range s.PrimaryKeys {
		if !names[k] {
			return fail("primary key %q is not a field", k)
		}
	}
	if len(s.PrimaryKeys) > 0 && len(s.TrimmedPrimaryKeys()) == 0 {
		return fail("primary key %v should not be the same as the partition fields %v", s.PrimaryKeys, s.PartitionKeys)
	}
	bk := s.Options.BucketKey()
	for _, k := range bk {
		if !names[k] {
			return fail("bucket key %q is not a field", k)
		}
		if slices.Contains(s.PartitionKeys, k) {
			return fail("bucket key %q is a partition key", k)
		}
		if len(s.PrimaryKeys) > 0 && !slices.Contains(s.PrimaryKeys, k) {
			return fail("bucket key %q is not part of the primary key %v", k, s.PrimaryKeys)
		}
	}
	if _, err := s.Options.Bucket(); err != nil {
		return fmt.Errorf("%w: schema %d: %w", ErrInvalidSchema, s.ID, err)
	}
	return nil
}

// TrimmedPrimaryKeys returns the primary keys without the partition keys
// (TableSchema.trimmedPrimaryKeys); empty for tables without primary key.
func (s *TableSchema) TrimmedPrimaryKeys() []string {
	out := []string{}
	for _, k := range s.PrimaryKeys {
		if !slices.Contains(s.PartitionKeys, k) {
			out = append(out, k)
		}
	}
	return out
}

// BucketKeys returns the "bucket-key" option split at ",", or the trimmed
// primary keys when unset (TableSchema.bucketKeys). Append tables without
// bucket-key have no bucket keys.
func (s *TableSchema) BucketKeys() []string {
	if bk := s.Options.BucketKey(); len(bk) > 0 {
		return bk
	}
	return s.TrimmedPrimaryKeys()
}

// NumBuckets is the "bucket" option (TableSchema.numBuckets).
func (s *TableSchema) NumBuckets() (int, error) { return s.Options.Bucket() }

// FieldNames returns the top-level field names in order.
func (s *TableSchema) FieldNames() []string { return types.FieldNames(s.Fields) }

// Project returns the fields named by names, in that order
// (TableSchema.projectedDataFields); an unknown name is an error wrapping
// ErrInvalidSchema.
func (s *TableSchema) Project(names []string) ([]types.DataField, error) {
	out := make([]types.DataField, len(names))
	for i, n := range names {
		_, f, ok := types.FieldByName(s.Fields, n)
		if !ok {
			return nil, fmt.Errorf("%w: schema %d has no field %q", ErrInvalidSchema, s.ID, n)
		}
		out[i] = f
	}
	return out, nil
}

// FieldIndexes returns the positions of names among the fields (-1 when
// absent), like TableSchema.projection.
func (s *TableSchema) FieldIndexes(names []string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		out[i], _, _ = types.FieldByName(s.Fields, n)
	}
	return out
}

// PartitionFields returns the partition key fields in partition-key order
// (TableSchema.logicalPartitionType).
func (s *TableSchema) PartitionFields() []types.DataField {
	fs, _ := s.Project(s.PartitionKeys) // Validate guarantees the keys exist
	return fs
}

// PrimaryKeyFields returns the primary key fields in key order.
func (s *TableSchema) PrimaryKeyFields() []types.DataField {
	fs, _ := s.Project(s.PrimaryKeys)
	return fs
}

// TrimmedPrimaryKeyFields returns the trimmed primary key fields.
func (s *TableSchema) TrimmedPrimaryKeyFields() []types.DataField {
	fs, _ := s.Project(s.TrimmedPrimaryKeys())
	return fs
}

// BucketKeyFields returns the bucket key fields in bucket-key order
// (TableSchema.logicalBucketKeyType).
func (s *TableSchema) BucketKeyFields() []types.DataField {
	fs, _ := s.Project(s.BucketKeys())
	return fs
}

// LogicalRowType returns the table's row type: a nullable ROW of Fields
// (TableSchema.logicalRowType).
func (s *TableSchema) LogicalRowType() types.DataType { return types.RowOf(s.Fields...) }

// CrossPartitionUpdate reports whether the table has a primary key that
// does not contain all partition keys (TableSchema.crossPartitionUpdate).
func (s *TableSchema) CrossPartitionUpdate() bool {
	if len(s.PrimaryKeys) == 0 || len(s.PartitionKeys) == 0 {
		return false
	}
	for _, p := range s.PartitionKeys {
		if !slices.Contains(s.PrimaryKeys, p) {
			return true
		}
	}
	return false
}

// New builds schema 0 of a new table the way Java's SchemaManager.createTable
// does: Version CurrentVersion, field ids assigned with
// types.AssignFieldIDs(fields, -1) unless keepIDs is true, HighestFieldID
// computed, options copied. timeMillis is the creation time. The result is
// validated.
func New(fields []types.DataField, keepIDs bool, partitionKeys, primaryKeys []string,
	options map[string]string, comment string, timeMillis int64) (*TableSchema, error) {
	fs := slices.Clone(fields)
	if !keepIDs {
		fs, _ = types.AssignFieldIDs(fields, -1)
	}
	s := &TableSchema{
		Version:        CurrentVersion,
		ID:             0,
		Fields:         fs,
		HighestFieldID: types.HighestFieldID(fs),
		PartitionKeys:  nonNil(slices.Clone(partitionKeys)),
		PrimaryKeys:    nonNil(slices.Clone(primaryKeys)),
		Options:        Options(options).Clone(),
		Comment:        comment,
		TimeMillis:     timeMillis,
	}
	if s.Options == nil {
		s.Options = Options{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// FileName returns "schema-<id>".
func FileName(id int64) string { return "schema-" + strconv.FormatInt(id, 10) }

// ParseFileName returns the id of a "schema-<id>" file name; ok is false for
// other names.
func ParseFileName(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, "schema-")
	if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil
}

// MarshalJSON returns Encode's output, so a TableSchema embeds in other JSON
// documents in Java's layout.
func (s *TableSchema) MarshalJSON() ([]byte, error) { return s.Encode() }

// UnmarshalJSON decodes with Decode.
func (s *TableSchema) UnmarshalJSON(data []byte) error {
	d, err := Decode(data)
	if err != nil {
		return err
	}
	*s = *d
	return nil
}
