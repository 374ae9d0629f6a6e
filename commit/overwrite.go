package commit

import (
	"context"
	"fmt"
	"slices"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
)

// PartitionSpec selects partitions by the values of some or all partition
// keys: partition key name → Go value of the key's type (see package types;
// e.g. int32 days for DATE, string for VARCHAR), nil for the NULL (default)
// partition. A partition matches when every key of the spec holds the given
// value; an empty spec matches every partition. It is Java's
// Map<String, String> partition spec with typed values; ParsePartitionSpec
// converts the string form.
type PartitionSpec map[string]any

// ParsePartitionSpec converts a Java-style partition spec of strings (as in
// SQL's PARTITION (dt = '2024-01-01')) into a PartitionSpec for ts: the
// table's partition.default-name (default "__DEFAULT_PARTITION__") is the
// NULL partition, other values are parsed as literals of the key's type the
// way predicate.ParseLiteral does (dates as YYYY-MM-DD, Java's
// castFromString forms). Errors wrap ErrInvalidArgument and name the key.
func ParsePartitionSpec(ts *schema.TableSchema, spec map[string]string) (PartitionSpec, error) {
	fields := ts.PartitionFields()
	def := ts.Options.PartitionDefaultName()
	out := make(PartitionSpec, len(spec))
	for k, v := range spec {
		i := slices.IndexFunc(fields, func(f types.DataField) bool { return f.Name == k })
		if i < 0 {
			return nil, fmt.Errorf("%w: %q is not a partition key of the table (partition keys %v)", ErrInvalidArgument, k, ts.PartitionKeys)
		}
		if v == def {
			out[k] = nil
			continue
		}
		val, err := predicate.ParseLiteral(fields[i].Type, v, false)
		if err != nil {
			return nil, fmt.Errorf("%w: partition value %q of %s: %w", ErrInvalidArgument, v, k, err)
		}
		out[k] = val
	}
	return out, nil
}

// selector is a resolved choice of partitions: the whole table, a set of
// exact partition rows, or an OR of partition specs (Java PartitionPredicate).
type selector struct {
	all   bool
	exact map[string][]byte // serialized partition rows
	specs []resolvedSpec
	types []types.DataType // of the partition fields
	memo  map[string]bool
}

// resolvedSpec is a PartitionSpec as field positions and values.
type resolvedSpec struct {
	pos  []int
	vals []any
}

// newSelector resolves specs (ORed) against the table's partition keys. No
// spec, or an empty one, selects the whole table.
func (c *Committer) newSelector(specs []PartitionSpec) (*selector, error) {
	fields := c.ts.PartitionFields()
	sel := &selector{types: row.FieldTypes(fields), memo: map[string]bool{}}
	if len(specs) == 0 {
		sel.all = true
	}
	for _, spec := range specs {
		if len(spec) == 0 {
			sel.all = true
			continue
		}
		var r resolvedSpec
		for k, v := range spec {
			i := slices.IndexFunc(fields, func(f types.DataField) bool { return f.Name == k })
			if i < 0 {
				return nil, fmt.Errorf("%w: %q is not a partition key of the table (partition keys %v)", ErrInvalidArgument, k, c.ts.PartitionKeys)
			}
			// The encoder checks the Go type of the value.
			if _, err := row.Encode([]types.DataType{fields[i].Type}, []any{v}); err != nil {
				return nil, fmt.Errorf("%w: partition value %v of %s: %w", ErrInvalidArgument, v, k, err)
			}
			r.pos, r.vals = append(r.pos, i), append(r.vals, v)
		}
		sel.specs = append(sel.specs, r)
	}
	return sel, nil
}

// match reports whether the serialized partition row is selected.
func (s *selector) match(partition []byte) (bool, error) {
	if s.all {
		return true, nil
	}
	if s.exact != nil {
		_, ok := s.exact[string(partition)]
		return ok, nil
	}
	if m, ok := s.memo[string(partition)]; ok {
		return m, nil
	}
	br, err := row.Deserialize(partition)
	if err != nil {
		return false, fmt.Errorf("commit: partition %x: %w", partition, err)
	}
	vals, err := row.Decode(s.types, br)
	if err != nil {
		return false, fmt.Errorf("commit: partition %x: %w", partition, err)
	}
	m := slices.ContainsFunc(s.specs, func(r resolvedSpec) bool {
		for j, p := range r.pos {
			if types.Compare(s.types[p], vals[p], r.vals[j]) != 0 {
				return false
			}
		}
		return true
	})
	s.memo[string(partition)] = m
	return m, nil
}

// overwriteDeletes returns a DELETE entry for every live file of the
// selected partitions of the snapshot whose manifest list is metas (Java
// OverwriteChangesProvider: files of negative buckets are left alone unless
// the table uses postpone buckets).
func (c *Committer) overwriteDeletes(ctx context.Context, metas []manifest.FileMeta, sel *selector) ([]manifest.Entry, error) {
	read := metas
	if sel.exact != nil {
		read = nil
		fields := c.ts.PartitionFields()
		for _, m := range metas {
			if mayContainPartitions(m, fields, sel.exact) {
				read = append(read, m)
			}
		}
	}
	lists, err := c.mw.readManifests(ctx, read)
	if err != nil {
		return nil, err
	}
	var all []manifest.Entry
	for _, es := range lists {
		for _, e := range es {
			if e.Bucket < 0 && !c.postpone {
				continue
			}
			ok, err := sel.match(e.Partition)
			if err != nil {
				return nil, err
			}
			if ok {
				all = append(all, e)
			}
		}
	}
	live, err := manifest.Net(all)
	if err != nil {
		return nil, fmt.Errorf("commit: files of the overwritten partitions: %w", err)
	}
	for i := range live {
		live[i].Kind = manifest.Delete
	}
	return live, nil
}

// Overwrite publishes msgs as one OVERWRITE snapshot that replaces the
// partitions spec selects (INSERT OVERWRITE ... PARTITION (...), Java
// FileStoreCommitImpl.overwritePartition with dynamic-partition-overwrite =
// false): DELETE entries for every live file of those partitions, then ADD
// entries for the new files. An empty spec replaces the whole table. The
// DELETE entries are taken from the snapshot the attempt builds on, so a
// commit that lands first is overwritten too, never kept half-way. The
// index files (deletion vectors, hash indexes) of those partitions leave the
// index manifest as well.
//
// Every new file must belong to a selected partition (else
// ErrInvalidArgument). Without compaction changes, the new level-0 files of
// a primary-key table are moved to the highest level when their key ranges
// do not overlap within each bucket (overwrite-upgrade, default true).
// Compaction changes in msgs follow as a COMPACT snapshot. A snapshot is
// created even when nothing is deleted or added.
//
// Real-time progress (paimon-cpp FileStoreCommitImpl::TryOverwrite): an
// empty spec resets it (the snapshot has no realtime.offsets); otherwise the
// entries of the partitions spec selects are removed, the others kept.
//
// Idempotency, retries and errors are those of Commit; it returns the id of
// the last snapshot created.
func (c *Committer) Overwrite(ctx context.Context, identifier int64, spec PartitionSpec, msgs []Message) (int64, error) {
	sel, err := c.newSelector([]PartitionSpec{spec})
	if err != nil {
		return 0, err
	}
	return c.overwrite(ctx, identifier, sel, true, msgs)
}

// OverwriteDynamic is Overwrite in Java's dynamic mode (the default
// dynamic-partition-overwrite = true of a partitioned table): it replaces
// only the partitions msgs write files to, and creates no OVERWRITE snapshot
// when msgs hold no data files. On a table without partition keys it
// replaces the whole table, as Java does. The real-time progress of the
// replaced partitions is removed (all of it on a table without partition
// keys).
func (c *Committer) OverwriteDynamic(ctx context.Context, identifier int64, msgs []Message) (int64, error) {
	sel := &selector{all: len(c.ts.PartitionKeys) == 0}
	if !sel.all {
		sel.exact = map[string][]byte{}
		for i := range msgs {
			m := &msgs[i]
			if len(m.Data.NewFiles)+len(m.Data.DeletedFiles) > 0 {
				sel.exact[string(m.Partition)] = m.Partition
			}
		}
	}
	return c.overwrite(ctx, identifier, sel, false, msgs)
}

// DynamicPartitionOverwrite reports the table option
// dynamic-partition-overwrite (default true), which Java's INSERT OVERWRITE
// consults to choose between OverwriteDynamic and Overwrite. Malformed
// values wrap schema.ErrInvalidOption.
func (c *Committer) DynamicPartitionOverwrite() (bool, error) {
	return c.ts.Options.Bool(keyDynamicPartitionOverw, true)
}

// DropPartitions deletes every live file of the partitions the specs select
// (ORed; each spec may name some or all partition keys) in one OVERWRITE
// snapshot with the batch identifier (Java FileStoreCommitImpl.dropPartitions)
// and returns its id. The snapshot is created even when no file matches.
// The real-time progress of the selected partitions is removed (specs are
// compared as the logical partition strings of package progress, so a DATE
// spec matches "19723" or "2024-01-01" as partition.legacy-name says); the
// snapshot records no progress when none is left.
// Errors: ErrInvalidArgument for no spec, an empty spec (use Truncate to
// empty the table), or a spec that does not fit the partition keys; and the
// errors of Commit.
func (c *Committer) DropPartitions(ctx context.Context, specs []PartitionSpec) (int64, error) {
	if len(specs) == 0 {
		return 0, fmt.Errorf("%w: no partition to drop", ErrInvalidArgument)
	}
	for _, s := range specs {
		if len(s) == 0 {
			return 0, fmt.Errorf("%w: an empty partition spec selects the whole table; use Truncate", ErrInvalidArgument)
		}
	}
	sel, err := c.newSelector(specs)
	if err != nil {
		return 0, err
	}
	return c.overwrite(ctx, BatchIdentifier, sel, true, nil)
}

// Truncate deletes every live file of the table in one OVERWRITE snapshot
// with the batch identifier (Java FileStoreCommitImpl.truncateTable) and
// returns its id. The snapshot records no real-time progress. Errors are
// those of Commit.
func (c *Committer) Truncate(ctx context.Context) (int64, error) {
	return c.overwrite(ctx, BatchIdentifier, &selector{all: true}, true, nil)
}

// overwrite is FileStoreCommitImpl.overwritePartition after the partition
// filter is built. static marks a filter the new files must satisfy; a
// dynamic selector with no partitions skips the OVERWRITE snapshot.
func (c *Committer) overwrite(ctx context.Context, identifier int64, sel *selector, static bool, msgs []Message) (int64, error) {
	ctx, t := c.startReport(ctx)
	id, err := c.overwriteParts(ctx, identifier, sel, static, msgs)
	c.finishReport(ctx, t, identifier, msgs, err)
	c.afterCommit(ctx, id, identifier, err)
	return id, err
}

// overwriteParts publishes the OVERWRITE and COMPACT snapshots of overwrite.
func (c *Committer) overwriteParts(ctx context.Context, identifier int64, sel *selector, static bool, msgs []Message) (int64, error) {
	if c.retry.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.retry.timeout)
		defer cancel()
	}
	if identifier != BatchIdentifier {
		if id, done, err := c.committedAlready(ctx, identifier); err != nil || done {
			return id, err
		}
	}
	parts, err := c.parts(msgs)
	if err != nil {
		return 0, err
	}
	app, cmp := parts[0], parts[1]
	// An overwrite commits no changelog: Java's overwritePartition logs the
	// messages' changelog files as ignored and leaves them out.
	app.changelog, cmp.changelog = changelog{}, changelog{}
	if static {
		for _, e := range app.entries {
			ok, err := sel.match(e.Partition)
			if err != nil {
				return 0, err
			}
			if !ok {
				return 0, fmt.Errorf("%w: the changes in partition %x (bucket %d, file %s) do not belong to the overwritten partitions",
					ErrInvalidArgument, e.Partition, e.Bucket, e.File.FileName)
			}
		}
	}
	if cmp.empty() {
		app.entries = c.tryUpgrade(app.entries)
	}
	var last int64
	if static || sel.all || len(sel.exact) > 0 {
		prog, err := c.overwriteProgress(sel)
		if err != nil {
			return 0, err
		}
		id, err := c.commitPart(ctx, identifier, part{kind: snapshot.KindOverwrite, entries: app.entries, index: app.index,
			check: true, overwrite: sel, prog: prog, watermark: c.watermark})
		if err != nil {
			return 0, err
		}
		last = id
	}
	if !cmp.empty() {
		id, err := c.commitPart(ctx, identifier, cmp)
		if err != nil {
			return last, err
		}
		last = id
	}
	return last, nil
}

// tryUpgrade is FileStoreCommitImpl.tryUpgrade: when overwrite-upgrade is
// on and every new file of a primary-key table is an ADD on level 0 of a
// non-negative bucket, the files of each partition-bucket whose key ranges
// do not overlap move to the highest level (num-levels - 1), so that the
// overwritten data needs no compaction. Entries that cannot be upgraded are
// returned unchanged. (Java would also upgrade DELETE entries of row-level
// changes, whose identifiers then match no file; those are left alone here.)
func (c *Committer) tryUpgrade(entries []manifest.Entry) []manifest.Entry {
	if !c.upgrade || len(c.ts.PrimaryKeys) == 0 || c.maxLevel <= 0 {
		return entries
	}
	for _, e := range entries {
		if e.Kind != manifest.Add || e.File.Level > 0 || e.Bucket < 0 {
			return entries
		}
	}
	keyTypes := row.FieldTypes(c.ts.TrimmedPrimaryKeyFields())
	type bucketKey struct {
		part   string
		bucket int32
	}
	type keyed struct {
		e        manifest.Entry
		min, max []any
	}
	var order []bucketKey
	groups := map[bucketKey][]keyed{}
	for _, e := range entries {
		minK, err1 := decodeKey(e.File.MinKey, keyTypes)
		maxK, err2 := decodeKey(e.File.MaxKey, keyTypes)
		if err1 != nil || err2 != nil {
			return entries
		}
		k := bucketKey{string(e.Partition), e.Bucket}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], keyed{e, minK, maxK})
	}
	cmpKey := func(a, b []any) int {
		for i, t := range keyTypes {
			if c := types.Compare(t, a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	out := make([]manifest.Entry, 0, len(entries))
	for _, k := range order {
		fs := groups[k]
		sorted := slices.Clone(fs)
		slices.SortStableFunc(sorted, func(a, b keyed) int { return cmpKey(a.min, b.min) })
		overlap := false
		for i := 0; i+1 < len(sorted); i++ {
			if cmpKey(sorted[i].max, sorted[i+1].min) >= 0 {
				overlap = true
				break
			}
		}
		if overlap {
			for _, f := range fs {
				out = append(out, f.e)
			}
			continue
		}
		for _, f := range sorted {
			e := f.e
			e.File.Level = c.maxLevel
			out = append(out, e)
		}
	}
	return out
}
