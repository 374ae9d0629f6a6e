package reader

import (
	"context"
	"math"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// This file holds the planning-time pruning of manifest entries, applied to
// each manifest's entries before they are netted, as Java's
// AbstractFileStoreScan.readManifest filters them (entry row filter, then
// filterByStats): WithBucket, the partition filter, the bucket selection
// (Java BucketSelector), primary-key range pruning (KeyValueFileStoreScan's
// key filter) and append-file value statistics (AppendOnlyFileStoreScan).
// An ADD and the DELETE of the same file carry the same partition, bucket and
// file meta, so they are kept or dropped together.

// maxBucketKeyCombinations bounds the bucket-key value combinations a bucket
// selection enumerates (Java BucketSelector.MAX_VALUES).
const maxBucketKeyCombinations = 1000

// pruner decides which manifest entries of one planned snapshot can hold rows
// the scan wants. It is used by one goroutine at a time, except sel, which
// Plan.SelectsBucket may use concurrently.
type pruner struct {
	t  *tableState
	ts *schema.TableSchema
	// sel holds the partition and bucket conditions.
	sel *selector
	// keys prunes primary-key files by key statistics; nil without usable
	// conjuncts.
	keys *keyPruner
	// values is the whole filter, tested on the value statistics of append
	// files; nil for primary-key tables or without filter.
	values predicate.Predicate
	// partOK memoizes the partition filter per serialized partition.
	partOK map[string]bool
	// memo, when set, keeps decoded key statistics across the lookups of
	// one kept plan (Plan.Narrow).
	memo *planMemo
	// index skips files by their embedded file index; nil without Equal or
	// In conjuncts it may use.
	index *indexPruner
	// counts tallies what keep and readEntries dropped (ScanReport).
	counts pruneCounts
}

// selector is the partition and bucket part of a scan: what decides whether
// a partition-bucket may hold rows the scan wants.
type selector struct {
	bucket     *int32              // WithBucket
	partFilter predicate.Predicate // over partition-field positions; nil for none
	partTypes  []types.DataType
	buckets    *bucketSelector // nil: every bucket
	total      int32           // the schema's bucket option
}

// newPruner prunes by filter and, for point lookups, keys (the batch of
// WithKeys or Narrow that filter's KeyFilter part came from; nil for none).
func newPruner(t *tableState, ts *schema.TableSchema, filter predicate.Predicate, bucket *int32, keys arrow.RecordBatch) *pruner {
	p := &pruner{t: t, ts: ts, partOK: map[string]bool{}}
	p.sel = newSelector(ts, filter, bucket, keys)
	p.index = newIndexPruner(t, filter, ts)
	if filter != nil {
		if len(ts.PrimaryKeys) > 0 {
			p.keys = newKeyPruner(filter, ts)
		} else {
			p.values = filter
		}
	}
	return p
}

func newSelector(ts *schema.TableSchema, filter predicate.Predicate, bucket *int32, keys arrow.RecordBatch) *selector {
	s := &selector{bucket: bucket, partFilter: partitionFilter(filter, ts), partTypes: row.FieldTypes(ts.PartitionFields())}
	if n, err := ts.Options.Bucket(); err == nil {
		s.total = int32(n)
	}
	// A lookup's own keys select their buckets exactly; the filter's
	// literals only by combining every key column's values.
	if s.buckets = keyBucketSelector(ts, keys); s.buckets == nil {
		s.buckets = newBucketSelector(filter, ts)
	}
	return s
}

// keepManifest reports whether a manifest may hold wanted entries, from its
// partition statistics and bucket range (Java ManifestsReader
// filterManifestFileMeta).
func (p *pruner) keepManifest(m *manifest.FileMeta) bool {
	if b := p.sel.bucket; b != nil && m.MinBucket != nil && m.MaxBucket != nil && (*b < *m.MinBucket || *b > *m.MaxBucket) {
		return false
	}
	if p.sel.partFilter == nil {
		return true
	}
	st, err := decodeStats(p.ts.PartitionFields(), nil, m.PartitionStats)
	if err != nil {
		return true // unreadable partition stats only disable pruning
	}
	return p.sel.partFilter.TestStats(m.NumAddedFiles+m.NumDeletedFiles, st.Min, st.Max, st.NullCounts)
}

// keep reports whether entry e may hold rows the scan wants.
func (p *pruner) keep(ctx context.Context, e *manifest.Entry) (bool, error) {
	p.counts.entries++
	if b := p.sel.bucket; b != nil && e.Bucket != *b {
		p.counts.bucket++
		return false, nil
	}
	if p.sel.partFilter != nil {
		ok, seen := p.partOK[string(e.Partition)]
		if !seen {
			ok = p.sel.partitionMatches(e.Partition)
			p.partOK[string(e.Partition)] = ok
		}
		if !ok {
			p.counts.partition++
			return false, nil
		}
	}
	if p.sel.buckets != nil && !p.sel.buckets.selects(e.Bucket, e.TotalBuckets) {
		p.counts.bucket++
		return false, nil
	}
	var ok bool
	var err error
	switch {
	case p.keys != nil:
		ok, err = p.keys.mayContain(ctx, p.t, p.ts, &e.File, p.memo)
	case p.values != nil:
		ok, err = fileMayMatch(ctx, p.t, p.ts, &e.File, p.values)
	default:
		ok = true
	}
	if !ok && err == nil {
		p.counts.stats++
	}
	if !ok || err != nil || p.index == nil {
		return ok, err
	}
	return p.index.mayContain(e)
}

// pruneCounts are the figures of a plan's pruning: manifests listed and
// skipped, entries read, and entries dropped by partition, bucket and
// statistics (the file index counts its own, indexPruner.skipped).
type pruneCounts struct {
	manifests, manifestsSkipped       int
	entries, partition, bucket, stats int
}

// keepLive is the part of keep that reads files (separate file index
// files), asked of live entries only (after netting).
func (p *pruner) keepLive(ctx context.Context, e *manifest.Entry) (bool, error) {
	if p.index == nil {
		return true, nil
	}
	return p.index.mayContainSeparate(ctx, e)
}

// judge returns the live files of es (netted ADD entries, left unchanged)
// that keep and then live keep. es may be shared (a kept live set): when
// keep drops nothing and live has nothing to judge, es itself is returned,
// else a copy.
func (p *pruner) judge(ctx context.Context, es []manifest.Entry) ([]manifest.Entry, error) {
	var kept []manifest.Entry // nil until keep drops an entry
	for i := range es {
		ok, err := p.keep(ctx, &es[i])
		if err != nil {
			return nil, err
		}
		switch {
		case !ok && kept == nil:
			kept = make([]manifest.Entry, i, len(es))
			copy(kept, es[:i])
		case ok && kept != nil:
			kept = append(kept, es[i])
		}
	}
	if kept == nil {
		if p.index == nil {
			return es, nil
		}
		kept = slices.Clone(es) // live drops entries in place
	}
	return p.live(ctx, kept)
}

// live drops the entries keepLive rules out.
func (p *pruner) live(ctx context.Context, es []manifest.Entry) ([]manifest.Entry, error) {
	if p.index == nil {
		return es, nil
	}
	out := es[:0]
	for i := range es {
		ok, err := p.keepLive(ctx, &es[i])
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, es[i])
		}
	}
	return out, nil
}

// partitionMatches tests the partition filter on a serialized partition;
// a partition that does not decode is kept (building the split reports it).
func (s *selector) partitionMatches(partition []byte) bool {
	if s.partFilter == nil {
		return true
	}
	br, err := row.Deserialize(partition)
	if err != nil {
		return true
	}
	values, err := row.Decode(s.partTypes, br)
	if err != nil {
		return true
	}
	return s.partFilter.Test(values)
}

// SelectsBucket reports whether rows of the partition-bucket (partition,
// bucket) may satisfy the plan's scan: false when its partition fails the
// partition part of the filter, when WithBucket names another bucket, or when
// the filter fixes every bucket-key column by = or IN and no combination of
// those values hashes to bucket under the table's bucket count (p.Schema's
// bucket option; the bucket selection of Java's BucketSelector). The plan's
// splits already exclude such partition-buckets; the real-time layer uses it
// to skip the memory rows of partition-buckets a point query cannot touch.
// partition is the serialized partition BinaryRow as in manifests. A plan
// not made by Scan.Plan selects everything.
func (p *Plan) SelectsBucket(partition []byte, bucket int32) bool {
	s := p.sel
	if s == nil {
		return true
	}
	if s.bucket != nil && bucket != *s.bucket {
		return false
	}
	if !s.partitionMatches(partition) {
		return false
	}
	return s.buckets == nil || s.buckets.selects(bucket, s.total)
}

// bucketSelector is Java's BucketSelector for one scan: the bucket-key value
// combinations the filter allows, and for each bucket count the buckets they
// hash to with the table's bucket function (row.Bucket for
// bucket-function.type = default, row.ModBucket for mod), as the writer
// computes them. Entries of other buckets cannot hold matching rows. Unlike
// Java, conjuncts under an OR with partition columns are not resolved per
// partition; only top-level conjuncts are used.
type bucketSelector struct {
	keys []row.BinaryRow // default function: encoded bucket-key rows
	vals []any           // mod function: single bucket-key values
	mod  bool

	mu      sync.Mutex
	buckets map[int32]map[int32]bool // by total buckets; nil set = all buckets
}

// prunableBuckets returns the bucket-key fields and bucket function of a
// table whose buckets a key selection can prune: fixed (or postpone)
// buckets, the default or mod function, a bucket key.
func prunableBuckets(ts *schema.TableSchema) ([]types.DataField, string, bool) {
	if n, err := ts.Options.Bucket(); err != nil || (n <= 0 && n != -2) {
		return nil, "", false
	}
	fn, err := ts.Options.BucketFunctionType()
	if err != nil || (fn != "default" && fn != "mod") {
		return nil, "", false
	}
	keyFields := ts.BucketKeyFields()
	return keyFields, fn, len(keyFields) > 0
}

// newBucketSelector returns the bucket selection of filter on ts, or nil when
// it cannot prune: not a fixed-bucket (or postpone) table, a bucket function
// other than default and mod, a bucket-key column not fixed by a top-level
// conjunct of = / IN literals (or an OR of them on the column), more than
// maxBucketKeyCombinations combinations, or contradictory conjuncts (Java
// gives up on those too).
func newBucketSelector(filter predicate.Predicate, ts *schema.TableSchema) *bucketSelector {
	if filter == nil {
		return nil
	}
	keyFields, fn, ok := prunableBuckets(ts)
	if !ok {
		return nil
	}
	pos := map[int]int{} // field index in ts.Fields -> bucket-key position
	for j, f := range keyFields {
		i, _, ok := types.FieldByName(ts.Fields, f.Name)
		if !ok {
			return nil
		}
		pos[i] = j
	}
	values := make([][]any, len(keyFields))
	set := make([]bool, len(keyFields))
	for _, c := range predicate.Conjuncts(filter) {
		ref, lits, ok := equalityLiterals(c)
		if !ok {
			continue
		}
		j, ok := pos[ref]
		if !ok {
			continue
		}
		t := keyFields[j].Type
		var vals []any
		usable := true
		for _, l := range lits {
			if l == nil {
				continue // = NULL and IN (NULL) match no row
			}
			v, ok := bucketLiteral(t, l)
			if !ok {
				usable = false
				break
			}
			vals = append(vals, v)
		}
		if !usable {
			continue
		}
		if !set[j] {
			values[j], set[j] = vals, true
			continue
		}
		var both []any
		for _, a := range values[j] {
			for _, b := range vals {
				if types.Compare(t, a, b) == 0 {
					both = append(both, a)
					break
				}
			}
		}
		if len(both) == 0 {
			return nil
		}
		values[j] = both
	}
	count := 1
	for j := range values {
		if !set[j] {
			return nil
		}
		count *= len(values[j])
		if count > maxBucketKeyCombinations {
			return nil
		}
	}
	s := &bucketSelector{mod: fn == "mod", buckets: map[int32]map[int32]bool{}}
	if s.mod {
		if len(keyFields) != 1 {
			return nil
		}
		s.vals = values[0]
		return s
	}
	keyTypes := row.FieldTypes(keyFields)
	combo := make([]any, len(keyFields))
	var walk func(j int) bool
	walk = func(j int) bool {
		if j == len(values) {
			br, err := row.Encode(keyTypes, combo)
			if err != nil {
				return false
			}
			s.keys = append(s.keys, br)
			return true
		}
		for _, v := range values[j] {
			combo[j] = v
			if !walk(j + 1) {
				return false
			}
		}
		return true
	}
	if !walk(0) {
		return nil
	}
	return s
}

// keyBucketSelector returns the buckets of exactly the primary keys in
// keys (a batch KeyFilter accepted) on ts: each key's bucket-key columns
// hashed as the writer routes them. It is at least as narrow as the
// selection newBucketSelector takes from KeyFilter's predicate, which for a
// composite key can only combine every column's values (so n keys give up
// to n^2 combinations, and above maxBucketKeyCombinations no pruning at
// all). nil when the table's buckets cannot be pruned (as for
// newBucketSelector) or keys lack a bucket-key column.
func keyBucketSelector(ts *schema.TableSchema, keys arrow.RecordBatch) *bucketSelector {
	if keys == nil {
		return nil
	}
	keyFields, fn, ok := prunableBuckets(ts)
	if !ok || (fn == "mod" && len(keyFields) != 1) {
		return nil
	}
	cols := make([]arrow.Array, len(keyFields))
	for j, f := range keyFields {
		idx := keys.Schema().FieldIndices(f.Name)
		if len(idx) != 1 || !arrow.TypeEqual(types.ToArrow(f.Type), keys.Column(idx[0]).DataType()) {
			return nil
		}
		cols[j] = keys.Column(idx[0])
	}
	s := &bucketSelector{mod: fn == "mod", buckets: map[int32]map[int32]bool{}}
	keyTypes := row.FieldTypes(keyFields)
	vals := make([]any, len(keyFields))
	for r := range int(keys.NumRows()) {
		for j, f := range keyFields {
			if cols[j].IsNull(r) {
				return nil
			}
			v, err := types.ArrowValue(f.Type, cols[j], r)
			if err != nil {
				return nil
			}
			// As newBucketSelector takes KeyFilter's literals (types the
			// bucket function does not hash there are not pruned here).
			if vals[j], ok = bucketLiteral(f.Type, v); !ok {
				return nil
			}
		}
		if s.mod {
			s.vals = append(s.vals, vals[0])
			continue
		}
		br, err := row.Encode(keyTypes, vals)
		if err != nil {
			return nil
		}
		s.keys = append(s.keys, br)
	}
	return s
}

// selects reports whether bucket of a partition with total buckets may hold
// selected keys. Entries whose bucket count is unknown (total <= 0) or whose
// bucket is not a hash bucket are kept.
func (s *bucketSelector) selects(bucket, total int32) bool {
	if total <= 0 || bucket < 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set, ok := s.buckets[total]
	if !ok {
		set = map[int32]bool{}
		if s.mod {
			for _, v := range s.vals {
				b, err := row.ModBucket(v, int(total))
				if err != nil {
					set = nil
					break
				}
				set[int32(b)] = true
			}
		} else {
			for _, k := range s.keys {
				set[int32(row.Bucket(k, int(total)))] = true
			}
		}
		s.buckets[total] = set
	}
	return set == nil || set[bucket]
}

// equalityLiterals returns the field and literals of a conjunct that fixes
// one field to a list of values: "f = v", "f IN (...)", or an OR of those on
// the same field.
func equalityLiterals(p predicate.Predicate) (int, []any, bool) {
	switch x := p.(type) {
	case *predicate.Leaf:
		if x.Op == predicate.OpEqual || x.Op == predicate.OpIn {
			return x.Ref.Index, x.Literals, true
		}
	case *predicate.Compound:
		if x.And || len(x.Children) == 0 {
			return 0, nil, false
		}
		ref := -1
		var lits []any
		for _, c := range x.Children {
			r, l, ok := equalityLiterals(c)
			if !ok || (ref >= 0 && r != ref) {
				return 0, nil, false
			}
			ref = r
			lits = append(lits, l...)
		}
		return ref, lits, true
	}
	return 0, nil, false
}

// bucketLiteral returns literal v as the Go value a row of type t holds when
// it equals v (predicate.Test compares with types.Compare), so that its
// encoding hashes as the writer hashes such rows. It refuses kinds whose
// equal values may encode differently (FLOAT/DOUBLE: -0.0 and NaN),
// decimals of another scale and literals of another Go type, so a refused
// conjunct is simply not used for pruning. Integers of another Go width are
// converted; one out of the column's range matches no row and is refused too
// (the conjunct is then not used, which is safe).
func bucketLiteral(t types.DataType, v any) (any, bool) {
	switch t.Kind {
	case types.KindBoolean:
		_, ok := v.(bool)
		return v, ok
	case types.KindTinyInt:
		n, ok := intLiteral(v, math.MinInt8, math.MaxInt8)
		return int8(n), ok
	case types.KindSmallInt:
		n, ok := intLiteral(v, math.MinInt16, math.MaxInt16)
		return int16(n), ok
	case types.KindInt, types.KindDate, types.KindTime:
		n, ok := intLiteral(v, math.MinInt32, math.MaxInt32)
		return int32(n), ok
	case types.KindBigInt:
		n, ok := intLiteral(v, math.MinInt64, math.MaxInt64)
		return n, ok
	case types.KindChar, types.KindVarChar:
		_, ok := v.(string)
		return v, ok
	case types.KindBinary, types.KindVarBinary:
		_, ok := v.([]byte)
		return v, ok
	case types.KindDecimal:
		d, ok := v.(types.Decimal)
		return v, ok && d.Unscaled != nil && d.Scale == t.Scale
	case types.KindTimestamp, types.KindLocalZonedTimestamp:
		_, ok := v.(types.Timestamp)
		return v, ok
	}
	return nil, false
}

// intLiteral converts a Go integer to int64 if it lies in [lo, hi].
func intLiteral(v any, lo, hi int64) (int64, bool) {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int8:
		n = int64(x)
	case int16:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case uint8:
		n = int64(x)
	case uint16:
		n = int64(x)
	case uint32:
		n = int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		n = int64(x)
	case uint:
		if uint64(x) > math.MaxInt64 {
			return 0, false
		}
		n = int64(x)
	default:
		return 0, false
	}
	return n, n >= lo && n <= hi
}

// keyPruner drops primary-key files whose key statistics exclude every key
// the filter's conjuncts on trimmed primary-key columns allow (Java
// KeyValueFileStoreScan.filterByStats with the key filter of
// PrimaryKeyFileStoreTable). Every version of a key lies in the key range of
// the file holding it, so a dropped file holds no version of a wanted key,
// whatever the merge engine. Conjuncts on value columns are never used: a
// file whose values miss the filter may hold the newest version of a key
// whose older version matches (Java's value-filter pruning of whole buckets
// and of skip-level-0 reads is not done here, because ReadSplitWith merges
// memory runs over a plan's splits).
type keyPruner struct {
	filter predicate.Predicate // over positions in fields
	fields []types.DataField   // trimmed primary-key fields of the read schema
}

func newKeyPruner(filter predicate.Predicate, ts *schema.TableSchema) *keyPruner {
	fields := ts.TrimmedPrimaryKeyFields()
	pos := map[int]int{}
	for j, f := range fields {
		if i, _, ok := types.FieldByName(ts.Fields, f.Name); ok {
			pos[i] = j
		}
	}
	kf, ok := filter.Pick(func(i int) (int, bool) { j, ok := pos[i]; return j, ok })
	if !ok {
		return nil
	}
	return &keyPruner{filter: kf, fields: fields}
}

// mayContain reports whether file f may hold a key the key filter allows.
// Key statistics that do not decode never prune.
func (k *keyPruner) mayContain(ctx context.Context, t *tableState, ts *schema.TableSchema, f *manifest.DataFileMeta, memo *planMemo) (bool, error) {
	if memo != nil {
		if st, ok := memo.keyStats.Load(f.FileName); ok {
			st := st.(row.Stats)
			return k.filter.TestStats(f.RowCount, st.Min, st.Max, st.NullCounts), nil
		}
	}
	fileSchema := ts
	if f.SchemaID != ts.ID {
		var err error
		if fileSchema, err = t.schema(ctx, f.SchemaID); err != nil {
			return false, err
		}
	}
	fileKeys := fileSchema.TrimmedPrimaryKeyFields()
	st, err := decodeStats(fileKeys, nil, f.KeyStats)
	if err != nil || len(st.Min) != len(fileKeys) || len(st.Max) != len(fileKeys) {
		return true, nil
	}
	if len(fileKeys) > 0 && (st.Min[0] == nil || st.Max[0] == nil) {
		// The first field of the minimum and maximum key bounds the first
		// key column as well.
		lo, hi := firstKeyField(fileKeys[0].Type, f.MinKey), firstKeyField(fileKeys[0].Type, f.MaxKey)
		if lo != nil && hi != nil {
			st.Min[0], st.Max[0] = lo, hi
		}
	}
	if fileSchema != ts {
		st = row.EvolveStats(fileKeys, st, k.fields, f.RowCount)
	}
	if memo != nil {
		memo.keyStats.Store(f.FileName, st)
	}
	return k.filter.TestStats(f.RowCount, st.Min, st.Max, st.NullCounts), nil
}

// firstKeyField decodes field 0 of a serialized key row, nil when it does
// not decode or is null.
func firstKeyField(t types.DataType, key []byte) any {
	br, err := row.Deserialize(key)
	if err != nil || br.Arity() == 0 {
		return nil
	}
	v, err := row.DecodeField(t, br, 0)
	if err != nil {
		return nil
	}
	return v
}
