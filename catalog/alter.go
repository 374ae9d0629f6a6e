package catalog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/format/cast"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// Errors of AlterTable and ApplyChanges (besides ErrTableNotExist,
// ErrInvalidName and ErrInvalidSchema); test with errors.Is.
var (
	// ErrColumnNotExist: a change names a column the table does not have
	// (Catalog.ColumnNotExistException).
	ErrColumnNotExist = errors.New("catalog: column does not exist")
	// ErrColumnExist: AddColumn or RenameColumn would create a second column
	// of that name (Catalog.ColumnAlreadyExistException).
	ErrColumnExist = errors.New("catalog: column already exists")
	// ErrUnsupportedChange: a change Java refuses (UnsupportedOperationException:
	// dropping or renaming a partition column, dropping a primary key column,
	// changing the type of a key column, changing an immutable option or the
	// bucket rules on a table with snapshots), or a type change this
	// implementation cannot read old files through (see UpdateColumnType).
	ErrUnsupportedChange = errors.New("catalog: unsupported schema change")
)

// SchemaChange is one change of AlterTable: SetOption, RemoveOption,
// UpdateComment, AddColumn, RenameColumn, DropColumn, UpdateColumnType,
// UpdateColumnComment or UpdateColumnPosition (Java
// org.apache.paimon.schema.SchemaChange and its subclasses). Columns are
// top-level columns named by their name; UpdateColumnType can also change a
// nested type (its Path).
type SchemaChange interface {
	schemaChange()
}

// SetOption sets a table option (SchemaChange.SetOption). On a table that
// has snapshots, immutable options (ImmutableOptions) cannot change and
// "bucket" cannot change from or to -1.
type SetOption struct {
	Key, Value string
}

// RemoveOption removes a table option (SchemaChange.RemoveOption). On a
// table that has snapshots, immutable options and "bucket" cannot be
// removed.
type RemoveOption struct {
	Key string
}

// UpdateComment replaces the table comment; "" removes it
// (SchemaChange.UpdateComment).
type UpdateComment struct {
	Comment string
}

// MoveType says where a column goes (SchemaChange.Move.MoveType).
type MoveType int

// The move types.
const (
	// MoveFirst puts the column first.
	MoveFirst MoveType = iota + 1
	// MoveAfter puts it right after Move.Reference.
	MoveAfter
	// MoveBefore puts it right before Move.Reference.
	MoveBefore
	// MoveLast puts it last.
	MoveLast
)

// Move is a column position (SchemaChange.Move). Column is the column
// moved (ignored by AddColumn, which moves the column it adds); Reference
// is the column of MoveAfter and MoveBefore.
type Move struct {
	Column    string
	Type      MoveType
	Reference string
}

// AddColumn adds a nullable column (SchemaChange.AddColumn) with the next
// field id after the schema's highest (nested ROW fields of Type get the ids
// after it, as Java's ReassignFieldId). Position nil appends it (or, with
// "add-column-before-partition" = true on a partitioned table, puts it
// before the first partition column). Old data files read the column as
// null. A NOT NULL Type is rejected with ErrInvalidSchema.
type AddColumn struct {
	Name        string
	Type        types.DataType
	Description string
	Position    *Move
}

// RenameColumn renames a column, keeping its field id, so old data files
// keep their values under the new name (SchemaChange.RenameColumn). Primary
// key columns may be renamed; partition columns may not. Options naming the
// column (bucket-key, sequence.field, fields.<name>.* and the
// fields.<a,b>.sequence-group / nested-key lists) follow the rename.
type RenameColumn struct {
	Name, NewName string
}

// DropColumn drops a column (SchemaChange.DropColumn). Partition and
// primary key columns cannot be dropped, nor the last column. Its field id
// is never reused.
type DropColumn struct {
	Name string
}

// UpdateColumnType changes a column's type (SchemaChange.UpdateColumnType).
// With KeepNullability the column keeps its nullability, otherwise Type's
// applies; NULL to NOT NULL needs "alter-column-null-to-not-null.disabled" =
// false. Partition and primary key columns cannot change type.
//
// The change is accepted exactly when Java accepts it: types.SupportsCast
// (DataTypeCasts.supportsCast; explicit casts such as BIGINT to INT, DOUBLE
// to FLOAT, INT to STRING or STRING to INT are allowed unless
// "disable-explicit-type-casting" is true) and cast.Resolves (Java has a
// cast rule: none for DATE to DATE, ROW to ROW, ARRAY to ARRAY, ...). Old
// data files are then read through format/cast with Java's values (narrowing
// integers wrap, strings parse or fail, ARRAY, MAP and ROW to CHAR/VARCHAR
// print "[1, 2]", "{k -> v}", "{1, a}"). Refusals wrap ErrUnsupportedChange.
type UpdateColumnType struct {
	Name string
	// Path, when set, names a type nested in column Name to change instead
	// (Java's fieldNames after the first): ROW field names, and one step of
	// any name (Flink uses "element" and "value") for the element of an
	// ARRAY or the value of a MAP, e.g. {"element"} for ARRAY<BIGINT> to
	// ARRAY<INT>. The partition and primary key checks apply to top-level
	// changes only, as in Java.
	Path            []string
	Type            types.DataType
	KeepNullability bool
}

// UpdateColumnComment replaces a column's description
// (SchemaChange.UpdateColumnComment).
type UpdateColumnComment struct {
	Name, Comment string
}

// UpdateColumnPosition moves a column (SchemaChange.UpdateColumnPosition).
type UpdateColumnPosition struct {
	Move Move
}

func (SetOption) schemaChange()            {}
func (RemoveOption) schemaChange()         {}
func (UpdateComment) schemaChange()        {}
func (AddColumn) schemaChange()            {}
func (RenameColumn) schemaChange()         {}
func (DropColumn) schemaChange()           {}
func (UpdateColumnType) schemaChange()     {}
func (UpdateColumnComment) schemaChange()  {}
func (UpdateColumnPosition) schemaChange() {}

// Option keys consulted by ApplyChanges (CoreOptions).
const (
	// KeyType ("type") is the table type; it can never be changed.
	KeyType = "type"
	// KeyDisableNullToNotNull ("alter-column-null-to-not-null.disabled",
	// default true) forbids turning a nullable column NOT NULL.
	KeyDisableNullToNotNull = "alter-column-null-to-not-null.disabled"
	// KeyDisableExplicitTypeCasting ("disable-explicit-type-casting",
	// default false) restricts Java to implicit casts.
	KeyDisableExplicitTypeCasting = "disable-explicit-type-casting"
	// KeyAddColumnBeforePartition ("add-column-before-partition", default
	// false) puts added columns before the first partition column.
	KeyAddColumnBeforePartition = "add-column-before-partition"
	// KeyDeletionVectorsModifiable ("deletion-vectors.modifiable", default
	// false) allows switching deletion vectors on a table with snapshots.
	KeyDeletionVectorsModifiable = "deletion-vectors.modifiable"
	// KeyIgnoreUpdateBefore ("ignore-update-before").
	KeyIgnoreUpdateBefore = "ignore-update-before"
)

// immutableOptions returns the options Java marks @Immutable in CoreOptions
// (CoreOptions.IMMUTABLE_OPTIONS, apache/paimon 5dacde51).
func immutableOptions() []string {
	return []string{
		"type", "bucket-key", "bucket-function.type", "data-file.path-directory", "merge-engine",
		"sequence.snapshot-ordering", "aggregation.remove-record-on-delete",
		"partial-update.remove-record-on-delete", "partial-update.remove-record-on-sequence-group",
		"rowkind.field", "primary-key", "primary-key.nullable", "partition",
		"dynamic-bucket.initial-buckets", "force-lookup", "row-tracking.enabled", "data-evolution.enabled",
		"index-file-in-data-file-dir", "blob-field", "blob-descriptor-field", "blob-view-field",
		"pk-clustering-override",
	}
}

// ImmutableOptions returns the option keys that cannot change once a table
// has a snapshot (Java CoreOptions.IMMUTABLE_OPTIONS), sorted.
func ImmutableOptions() []string {
	out := immutableOptions()
	slices.Sort(out)
	return out
}

// AlterTable applies changes to the table's latest schema and publishes the
// result as the next schema file, schema-(N+1), only if absent
// (SchemaManager.commitChanges). If another writer took that id first, it
// re-reads the latest schema and applies the changes again, until ctx ends.
// It returns the schema it published.
//
// Errors: ErrTableNotExist, ErrInvalidName, and those of ApplyChanges.
func (c *Catalog) AlterTable(ctx context.Context, id Identifier, changes ...SchemaChange) (*schema.TableSchema, error) {
	if err := checkIdentifier(id); err != nil {
		return nil, err
	}
	fio := c.wh.Sub(TablePath(id))
	sm := schema.NewManager(fio, "")
	hasSnapshots := false
	checkedSnapshots := false
	for {
		if err := ctx.Err(); err != nil {
			return nil, wrapOp("alter table "+id.String(), err)
		}
		old, err := sm.Latest(ctx)
		if err != nil {
			if errors.Is(err, fileio.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s", ErrTableNotExist, id)
			}
			return nil, wrapOp("alter table "+id.String(), err)
		}
		if !checkedSnapshots {
			// Java evaluates hasSnapshots lazily, once per commitChanges.
			_, err := snapshot.NewManager(fio).LatestID(ctx)
			switch {
			case err == nil:
				hasSnapshots = true
			case !errors.Is(err, snapshot.ErrNotFound):
				return nil, wrapOp("alter table "+id.String(), err)
			}
			checkedSnapshots = true
		}
		ns, err := ApplyChanges(old, hasSnapshots, c.now().UnixMilli(), changes...)
		if err != nil {
			return nil, wrapOp("alter table "+id.String(), err)
		}
		err = sm.Commit(ctx, ns)
		if errors.Is(err, fileio.ErrExist) {
			continue // lost the race for schema-(N+1): rebase on the new latest
		}
		if err != nil {
			return nil, wrapOp("alter table "+id.String(), err)
		}
		return ns, nil
	}
}

// ApplyChanges returns the schema that follows old after changes, applied
// in order: id old.ID+1, version schema.CurrentVersion, field ids kept,
// HighestFieldID advanced by added columns, creation time timeMillis
// (SchemaManager.generateTableSchema). hasSnapshots enables the option
// checks Java applies to tables with data (checkAlterTableOption,
// checkResetTableOption). old is not modified.
//
// Errors wrap ErrColumnNotExist, ErrColumnExist, ErrUnsupportedChange or
// ErrInvalidSchema (the result fails validation, an added column is NOT
// NULL, every column would be dropped, a malformed option value).
func ApplyChanges(old *schema.TableSchema, hasSnapshots bool, timeMillis int64, changes ...SchemaChange) (*schema.TableSchema, error) {
	oldOpts := old.Options
	newOpts := maps.Clone(map[string]string(old.Options))
	if newOpts == nil {
		newOpts = map[string]string{}
	}
	boolOpt := func(key string, def bool) (bool, error) {
		v, err := oldOpts.Bool(key, def)
		if err != nil {
			return false, invalidSchema("", err)
		}
		return v, nil
	}
	disableNullToNotNull, err := boolOpt(KeyDisableNullToNotNull, true)
	if err != nil {
		return nil, err
	}
	disableExplicitCast, err := boolOpt(KeyDisableExplicitTypeCasting, false)
	if err != nil {
		return nil, err
	}
	addBeforePartition, err := boolOpt(KeyAddColumnBeforePartition, false)
	if err != nil {
		return nil, err
	}
	fields := slices.Clone(old.Fields)
	highest := old.HighestFieldID
	comment := old.Comment
	var renames []RenameColumn

	for _, ch := range changes {
		switch ch := ch.(type) {
		case SetOption:
			oldValue, had := oldOpts[ch.Key]
			unchanged := (had && oldValue == ch.Value) || unchangedNormalizedKey(ch.Key, oldValue, had, ch.Value, old)
			if !unchanged && ch.Key == KeyType {
				return nil, fmt.Errorf("%w: change %q is not supported", ErrUnsupportedChange, KeyType)
			}
			if ch.Key == KeyPath {
				return nil, fmt.Errorf("%w: change %q is not supported", ErrUnsupportedChange, KeyPath)
			}
			if hasSnapshots && !unchanged {
				if err := checkAlterOption(oldOpts, ch.Key, oldValue, had, ch.Value); err != nil {
					return nil, err
				}
			}
			if !unchanged {
				newOpts[ch.Key] = ch.Value
			}
		case RemoveOption:
			if ch.Key == KeyType {
				return nil, fmt.Errorf("%w: change %q is not supported", ErrUnsupportedChange, KeyType)
			}
			if hasSnapshots {
				if err := checkResetOption(oldOpts, ch.Key); err != nil {
					return nil, err
				}
			}
			delete(newOpts, ch.Key)
		case UpdateComment:
			comment = ch.Comment
		case AddColumn:
			if !ch.Type.Nullable {
				return nil, fmt.Errorf("%w: column %q cannot be NOT NULL when added to an existing table", ErrInvalidSchema, ch.Name)
			}
			if err := checkColumnName(ch.Name); err != nil {
				return nil, err
			}
			if i, _, _ := types.FieldByName(fields, ch.Name); i >= 0 {
				return nil, fmt.Errorf("%w: %q", ErrColumnExist, ch.Name)
			}
			added, last := types.AssignFieldIDs([]types.DataField{{Name: ch.Name, Type: ch.Type, Description: ch.Description}}, highest)
			highest = last
			at := len(fields)
			if m := ch.Position; m != nil {
				switch m.Type {
				case MoveFirst:
					at = 0
				case MoveAfter, MoveBefore:
					ref, _, _ := types.FieldByName(fields, m.Reference)
					if ref < 0 {
						return nil, fmt.Errorf("%w: %q (position reference)", ErrColumnNotExist, m.Reference)
					}
					at = ref
					if m.Type == MoveAfter {
						at++
					}
				case MoveLast:
				default:
					return nil, fmt.Errorf("%w: move type %d", ErrUnsupportedChange, m.Type)
				}
			} else if addBeforePartition && len(old.PartitionKeys) > 0 {
				for i, f := range fields {
					if slices.Contains(old.PartitionKeys, f.Name) {
						at = i
						break
					}
				}
			}
			fields = slices.Insert(fields, at, added[0])
		case RenameColumn:
			if slices.Contains(old.PartitionKeys, ch.Name) {
				return nil, fmt.Errorf("%w: cannot rename partition column %q", ErrUnsupportedChange, ch.Name)
			}
			i, _, _ := types.FieldByName(fields, ch.Name)
			if i < 0 {
				return nil, fmt.Errorf("%w: %q", ErrColumnNotExist, ch.Name)
			}
			if err := checkColumnName(ch.NewName); err != nil {
				return nil, err
			}
			if j, _, _ := types.FieldByName(fields, ch.NewName); j >= 0 {
				return nil, fmt.Errorf("%w: %q", ErrColumnExist, ch.NewName)
			}
			if fields[i].Type.Kind == types.KindBlob {
				return nil, fmt.Errorf("%w: cannot rename BLOB column %q", ErrUnsupportedChange, ch.Name)
			}
			fields[i].Name = ch.NewName
			renames = append(renames, ch)
		case DropColumn:
			if slices.Contains(old.PartitionKeys, ch.Name) || slices.Contains(old.PrimaryKeys, ch.Name) {
				return nil, fmt.Errorf("%w: cannot drop partition key or primary key %q", ErrUnsupportedChange, ch.Name)
			}
			i, f, _ := types.FieldByName(fields, ch.Name)
			if i < 0 {
				return nil, fmt.Errorf("%w: %q", ErrColumnNotExist, ch.Name)
			}
			if f.Type.Kind == types.KindMap {
				for _, suffix := range []string{"map.storage-layout", "map.shared-shredding.max-columns", "map.shared-shredding.column-placement-policy"} {
					delete(newOpts, "fields."+ch.Name+"."+suffix)
				}
			}
			fields = slices.Delete(fields, i, i+1)
			if len(fields) == 0 {
				return nil, fmt.Errorf("%w: cannot drop all fields in table", ErrInvalidSchema)
			}
		case UpdateColumnType:
			path := append([]string{ch.Name}, ch.Path...)
			if len(path) == 1 && slices.Contains(old.PartitionKeys, ch.Name) {
				return nil, fmt.Errorf("%w: cannot update partition column %q", ErrUnsupportedChange, ch.Name)
			}
			if len(path) == 1 && slices.Contains(old.PrimaryKeys, ch.Name) {
				return nil, fmt.Errorf("%w: cannot update primary key %q", ErrUnsupportedChange, ch.Name)
			}
			dotted := strings.Join(path, ".")
			err := updateNested(fields, path, func(f types.DataField, depth int) (types.DataField, error) {
				source := rootType(f.Type, depth, len(path))
				target := ch.Type
				if ch.KeepNullability {
					target.Nullable = source.Nullable
				} else if disableNullToNotNull && source.Nullable && !target.Nullable {
					return f, fmt.Errorf("%w: cannot change column %q from nullable to NOT NULL; set %q = 'false' to allow it",
						ErrUnsupportedChange, dotted, KeyDisableNullToNotNull)
				}
				if err := target.Validate(); err != nil {
					return f, invalidSchema(fmt.Sprintf("column %q", dotted), err)
				}
				if source.Kind == types.KindBlob || target.Kind == types.KindBlob {
					return f, fmt.Errorf("%w: cannot change column type involving BLOB: %q %s -> %s", ErrUnsupportedChange, dotted, source, target)
				}
				if err := checkTypeChange(dotted, source, target, !disableExplicitCast); err != nil {
					return f, err
				}
				f.Type = withRootType(f.Type, target, depth, len(path))
				return f, nil
			})
			if err != nil {
				return nil, err
			}
		case UpdateColumnComment:
			i, _, _ := types.FieldByName(fields, ch.Name)
			if i < 0 {
				return nil, fmt.Errorf("%w: %q", ErrColumnNotExist, ch.Name)
			}
			fields[i].Description = ch.Comment
		case UpdateColumnPosition:
			if err := applyMove(fields, ch.Move); err != nil {
				return nil, err
			}
		case nil:
			return nil, fmt.Errorf("%w: nil change", ErrUnsupportedChange)
		default:
			return nil, fmt.Errorf("%w: %T", ErrUnsupportedChange, ch)
		}
	}

	rename := map[string]string{}
	for _, r := range renames {
		rename[r.Name] = r.NewName
	}
	n, err := normalize(Schema{
		Fields:        fields,
		PartitionKeys: old.PartitionKeys,
		PrimaryKeys:   renameList(old.PrimaryKeys, rename),
		Options:       renameInOptions(newOpts, rename),
		Comment:       comment,
	})
	if err != nil {
		return nil, err
	}
	ns := *old // keeps the option order of old for Encode
	ns.Version = schema.CurrentVersion
	ns.ID = old.ID + 1
	ns.Fields = n.Fields
	ns.HighestFieldID = highest
	ns.PartitionKeys = n.PartitionKeys
	ns.PrimaryKeys = n.PrimaryKeys
	ns.Options = schema.Options(n.Options)
	ns.Comment = n.Comment
	ns.TimeMillis = timeMillis
	if err := ns.Validate(); err != nil {
		return nil, invalidSchema("", err)
	}
	if err := validateTable(&ns); err != nil {
		return nil, err
	}
	return &ns, nil
}

func checkColumnName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty column name", ErrInvalidSchema)
	}
	return nil
}

// unchangedNormalizedKey is SchemaManager.isUnchangedNormalizedKey: "type"
// compares case-insensitively against its default "table"; "primary-key"
// and "partition", which live in the key lists, are unchanged when they
// name the current keys.
func unchangedNormalizedKey(key, oldValue string, had bool, newValue string, ts *schema.TableSchema) bool {
	if key == KeyType {
		if !had {
			oldValue = "table"
		}
		return strings.EqualFold(newValue, oldValue)
	}
	if had {
		return false
	}
	switch key {
	case KeyPrimaryKey:
		return slices.Equal(splitKeys(newValue), ts.PrimaryKeys)
	case KeyPartition:
		return slices.Equal(splitKeys(newValue), ts.PartitionKeys)
	}
	return false
}

func splitKeys(v string) []string {
	out := []string{}
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// javaBool is Boolean.parseBoolean: "true" in any case, else false.
func javaBool(v string) bool { return strings.EqualFold(v, "true") }

// checkAlterOption is SchemaManager.checkAlterTableOption.
func checkAlterOption(opts schema.Options, key, oldValue string, had bool, newValue string) error {
	if slices.Contains(immutableOptions(), key) {
		return fmt.Errorf("%w: change %q is not supported on a table with snapshots", ErrUnsupportedChange, key)
	}
	switch key {
	case schema.KeyBucket:
		oldBucket := -1
		if had {
			b, err := opts.Bucket()
			if err != nil {
				return invalidSchema("", err)
			}
			oldBucket = b
		}
		newBucket, err := schema.Options{key: newValue}.Bucket()
		if err != nil {
			return invalidSchema("", err)
		}
		if oldBucket == -1 {
			return fmt.Errorf("%w: cannot change bucket when it is -1", ErrUnsupportedChange)
		}
		if newBucket == -1 {
			return fmt.Errorf("%w: cannot change bucket to -1", ErrUnsupportedChange)
		}
	case schema.KeyDeletionVectorsEnabled:
		if !javaBool(opts.String(KeyDeletionVectorsModifiable, "false")) {
			oldDV := had && javaBool(oldValue)
			if oldDV != javaBool(newValue) {
				return fmt.Errorf("%w: cannot change deletion vectors mode from %t to %t; set %q = 'true' to allow it",
					ErrUnsupportedChange, oldDV, !oldDV, KeyDeletionVectorsModifiable)
			}
		}
	case schema.KeyIgnoreDelete, KeyIgnoreUpdateBefore:
		if had && javaBool(oldValue) && !javaBool(newValue) {
			return fmt.Errorf("%w: cannot change %s from true to false", ErrUnsupportedChange, key)
		}
	case "clustering.columns":
		if _, ok := opts["pk-clustering-override"]; ok {
			return fmt.Errorf("%w: cannot change %s when pk-clustering-override is enabled", ErrUnsupportedChange, key)
		}
	}
	return nil
}

// checkResetOption is SchemaManager.checkResetTableOption.
func checkResetOption(opts schema.Options, key string) error {
	if slices.Contains(immutableOptions(), key) {
		return fmt.Errorf("%w: change %q is not supported on a table with snapshots", ErrUnsupportedChange, key)
	}
	switch key {
	case schema.KeyBucket:
		return fmt.Errorf("%w: cannot reset %s", ErrUnsupportedChange, key)
	case schema.KeyDeletionVectorsEnabled:
		old, had := opts[key]
		return checkAlterOption(opts, key, old, had, "false")
	case "clustering.columns":
		if _, ok := opts["pk-clustering-override"]; ok {
			return fmt.Errorf("%w: cannot reset %s when pk-clustering-override is enabled", ErrUnsupportedChange, key)
		}
	}
	return nil
}

// applyMove is SchemaManager.applyMove.
func applyMove(fields []types.DataField, m Move) error {
	from, _, _ := types.FieldByName(fields, m.Column)
	if from < 0 {
		return fmt.Errorf("%w: %q", ErrColumnNotExist, m.Column)
	}
	moveTo := func(to int) {
		f := fields[from]
		copy(fields[from:], fields[from+1:])
		copy(fields[to+1:], fields[to:len(fields)-1])
		fields[to] = f
	}
	self := func(i int) error {
		if i == from {
			return fmt.Errorf("%w: cannot move column %q relative to itself", ErrUnsupportedChange, m.Column)
		}
		return nil
	}
	switch m.Type {
	case MoveFirst:
		if err := self(0); err != nil {
			return err
		}
		moveTo(0)
		return nil
	case MoveLast:
		if err := self(len(fields) - 1); err != nil {
			return err
		}
		moveTo(len(fields) - 1)
		return nil
	case MoveAfter, MoveBefore:
	default:
		return fmt.Errorf("%w: move type %d", ErrUnsupportedChange, m.Type)
	}
	ref, _, _ := types.FieldByName(fields, m.Reference)
	if ref < 0 {
		return fmt.Errorf("%w: %q (position reference)", ErrColumnNotExist, m.Reference)
	}
	if err := self(ref); err != nil {
		return err
	}
	to := ref
	if m.Type == MoveAfter && from > ref {
		to++
	}
	if m.Type == MoveBefore && from < ref {
		to--
	}
	moveTo(min(to, len(fields)-1))
	return nil
}

func renameList(names []string, rename map[string]string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		if r, ok := rename[n]; ok {
			n = r
		}
		out[i] = n
	}
	return out
}

func renameCSV(v string, rename map[string]string) string {
	return strings.Join(renameList(strings.Split(v, ","), rename), ",")
}

// renameInOptions is SchemaManager.applyRenameColumnsToOptions: the
// bucket-key and sequence.field lists, the per-field option keys
// fields.<name>.<suffix>, and the fields.<a,b>.sequence-group / nested-key
// options (names in key and value) follow the renames.
func renameInOptions(opts map[string]string, rename map[string]string) map[string]string {
	if len(rename) == 0 {
		return opts
	}
	out := maps.Clone(opts)
	for _, key := range []string{schema.KeyBucketKey, schema.KeySequenceField} {
		if v, ok := opts[key]; ok && strings.TrimSpace(v) != "" {
			out[key] = renameCSV(v, rename)
		}
	}
	perField := []string{"aggregate-function", "ignore-retract", "distinct", "list-agg-delimiter",
		"map.storage-layout", "map.shared-shredding.max-columns", "map.shared-shredding.column-placement-policy"}
	for from, to := range rename {
		for _, suffix := range perField {
			k := "fields." + from + "." + suffix
			if v, ok := out[k]; ok {
				delete(out, k)
				out["fields."+to+"."+suffix] = v
			}
		}
	}
	for key := range opts {
		if !strings.HasPrefix(key, "fields.") {
			continue
		}
		for _, suffix := range []string{"sequence-group", "nested-key"} {
			names, ok := strings.CutSuffix(key[len("fields."):], "."+suffix)
			if !ok {
				continue
			}
			v, present := out[key]
			if !present {
				break
			}
			delete(out, key)
			out["fields."+renameCSV(names, rename)+"."+suffix] = renameCSV(v, rename)
			break
		}
	}
	return out
}

// checkTypeChange is SchemaManager's check of an UpdateColumnType: Java
// requires DataTypeCasts.supportsCast(from, to, allowExplicit) and a cast
// rule (CastExecutors.resolve); a change Java allows that format/cast could
// not apply on read would be refused too (none is left: cast.Supported holds
// for every pair both accept), so no table is left that this implementation
// cannot read.
func checkTypeChange(name string, from, to types.DataType, allowExplicit bool) error {
	if !types.SupportsCast(from, to, allowExplicit) || !cast.Resolves(from, to) {
		return fmt.Errorf("%w: column %q: %s cannot be converted to %s without losing information",
			ErrUnsupportedChange, name, from, to)
	}
	if !cast.Supported(from, to) {
		return fmt.Errorf("%w: column %q: %s to %s is allowed by Java but not read by this implementation",
			ErrUnsupportedChange, name, from, to)
	}
	return nil
}

// integerDigits is the number of decimal digits of the largest value of an
// integer kind (the precision Java's DecimalType.of(integer type) uses).
func integerDigits(k types.Kind) int {
	switch k {
	case types.KindTinyInt:
		return 3
	case types.KindSmallInt:
		return 5
	case types.KindInt:
		return 10
	case types.KindBigInt:
		return 19
	}
	return 0
}

func integerRank(k types.Kind) int {
	switch k {
	case types.KindTinyInt:
		return 1
	case types.KindSmallInt:
		return 2
	case types.KindInt:
		return 3
	case types.KindBigInt:
		return 4
	}
	return 0
}

// Widens reports whether every value of type from converts exactly to type
// to (a lossless change: integer and DECIMAL widening, FLOAT to DOUBLE,
// longer strings and binaries, finer timestamps). UpdateColumnType accepts
// more than this (every cast Java accepts); Widens tells the lossless ones
// apart. Nullability is ignored; nested types must be equal.
func Widens(from, to types.DataType) bool {
	from.Nullable, to.Nullable = true, true
	if from.Equal(to) {
		return true
	}
	switch {
	case integerRank(from.Kind) > 0:
		switch {
		case integerRank(to.Kind) > 0:
			return integerRank(to.Kind) >= integerRank(from.Kind)
		case to.Kind == types.KindDecimal:
			return to.Precision-to.Scale >= integerDigits(from.Kind)
		case to.Kind == types.KindFloat:
			return integerRank(from.Kind) <= 2 // float32 holds every int16 exactly
		case to.Kind == types.KindDouble:
			return integerRank(from.Kind) <= 3 // float64 holds every int32 exactly
		}
	case from.Kind == types.KindFloat:
		return to.Kind == types.KindDouble
	case from.Kind == types.KindDecimal:
		return to.Kind == types.KindDecimal && to.Scale >= from.Scale && to.Precision-to.Scale >= from.Precision-from.Scale
	case from.IsString():
		return to.Kind == types.KindVarChar && to.Length >= from.Length
	case from.IsBinary():
		return to.Kind == types.KindVarBinary && to.Length >= from.Length
	case from.Kind == types.KindTimestamp, from.Kind == types.KindLocalZonedTimestamp:
		return to.Kind == from.Kind && to.Precision >= from.Precision
	}
	return false
}
