package parquet

import (
	"hash/maphash"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// The dictionary decision of parquet-mr, which Java Paimon writes with
// (RowDataParquetBuilder passes parquet.page.row.count.limit and
// parquet.dictionary.page.size on with their defaults):
//
//   - a column is written through FallbackValuesWriter: dictionary encoding
//     first (DictionaryValuesWriter), PLAIN as the fallback;
//   - when the column's first page is written (after page.row.count.limit
//     = 20,000 rows, or at the end of the row group when it has fewer),
//     the dictionary is kept only if isCompressionSatisfying: dictionary
//     bytes plus the page's encoded indices are fewer than the raw bytes
//     the same values take PLAIN-encoded; otherwise every value is
//     re-encoded PLAIN and no dictionary page is written;
//   - at any time the dictionary is dropped once it exceeds
//     parquet.dictionary.page.size (shouldFallBack);
//   - BOOLEAN is never dictionary-encoded, nor FIXED_LEN_BYTE_ARRAY
//     under the default PARQUET_1_0 writer version
//     (DefaultV1ValuesWriterFactory: "dictionary encoding was not enabled
//     in PARQUET 1.0").
//
// arrow-go's writer applies the size limit but checks the cost only for
// uncompressed columns, and then after every 1,024 values, so that a column
// of distinct values (_SEQUENCE_NUMBER, timestamps of small files) is
// dictionary-encoded up to the 1 MiB limit (131,072 BIGINT values, a hash
// table of up to 12 MiB) where Java writes it PLAIN. Writer therefore holds
// back the first firstPageRows rows of a file, makes parquet-mr's first-page
// decision for each top-level primitive column from them (decideDictionary)
// and opens arrow-go's writer with dictionary encoding off for the columns
// that fail it. Java decides again for every row group; here the decision of
// the first row group holds for the whole file.

// firstPageRows is parquet-mr's page.row.count.limit default
// (ParquetProperties.DEFAULT_PAGE_ROW_COUNT_LIMIT): a column's first page
// holds at most this many rows.
const firstPageRows = 20_000

// dictCost accumulates, for the values of one column's first page, the
// sizes parquet-mr's FallbackValuesWriter and DictionaryValuesWriter
// compare: raw (PLAIN) bytes, dictionary bytes, and the run structure of
// the RunLengthBitPackingHybridEncoder that encodes the indices.
type dictCost struct {
	raw, dict int64
	distinct  int64
	rle       rleSizer
}

// keep reports whether parquet-mr keeps the dictionary after the first page
// (FallbackValuesWriter.getBytes: isCompressionSatisfying, and
// shouldFallBack against the dictionary page size limit).
func (c *dictCost) keep(dictLimit int64) bool {
	if c.dict > dictLimit {
		return false
	}
	width := 0
	if c.distinct > 1 {
		width = bits.Len64(uint64(c.distinct - 1))
	}
	encoded := 1 + c.rle.size(width) // bit width byte + RLE/bit-packed indices
	return c.dict+encoded < c.raw
}

// rleSizer follows parquet-mr's RunLengthBitPackingHybridEncoder.writeInt
// on a sequence of dictionary indices, of which it only needs to know
// whether each equals the one before: runs of 8 or more equal values become
// RLE runs, other values bit-packed groups of 8, at most 63 groups per
// bit-packed run. size gives the encoded bytes for a bit width.
type rleSizer struct {
	repeat   int // repeatCount
	buffered int // numBufferedValues
	inRun    bool
	groups   int // bitPackedGroupCount of the open bit-packed run

	packed  int64 // bit-packed groups written
	headers int64 // header bytes of bit-packed runs
	rleRuns int64 // RLE runs written
	rleHdrs int64 // header bytes of RLE runs (varint of count<<1)
	done    bool
}

// add feeds the next index; same reports whether it equals the previous.
func (s *rleSizer) add(same bool) {
	if same {
		s.repeat++
		if s.repeat >= 8 {
			return
		}
	} else {
		if s.repeat >= 8 {
			s.writeRLE()
		}
		s.repeat = 1
	}
	s.buffered++
	if s.buffered == 8 {
		s.writeGroup()
	}
}

func (s *rleSizer) writeGroup() {
	if s.groups >= 63 {
		s.endRun()
	}
	if !s.inRun {
		s.inRun = true
		s.headers++
	}
	s.packed++
	s.buffered = 0
	s.repeat = 0
	s.groups++
}

func (s *rleSizer) endRun() {
	s.inRun = false
	s.groups = 0
}

func (s *rleSizer) writeRLE() {
	s.endRun()
	s.rleRuns++
	s.rleHdrs += int64(uvarintLen(uint64(s.repeat) << 1))
	s.repeat = 0
	s.buffered = 0
}

// finish flushes what is buffered, as toBytes does.
func (s *rleSizer) finish() {
	if s.done {
		return
	}
	s.done = true
	switch {
	case s.repeat >= 8:
		s.writeRLE()
	case s.buffered > 0:
		s.writeGroup()
		s.endRun()
	default:
		s.endRun()
	}
}

// size returns the encoded bytes with the given bit width (finish first).
func (s *rleSizer) size(width int) int64 {
	return s.packed*int64(width) + s.headers + s.rleHdrs + s.rleRuns*int64((width+7)/8)
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// decideDictionary returns the leaf column paths of sc whose dictionary
// parquet-mr would keep (true) or drop (false) after the first page, for the
// top-level primitive columns of head (batches of the write schema, their
// first firstPageRows rows counted) whose dictionary encoding enabled says
// is on. Columns it cannot judge (nested ones) are not in the result and keep
// arrow-go's defaults.
func decideDictionary(sc *schema.Schema, out *arrow.Schema, leaves []int, head []arrow.RecordBatch, enabled func(path string) bool, dictLimit int64, pageV2 bool) map[string]bool {
	res := map[string]bool{}
	var rows int64
	for _, r := range head {
		rows += r.NumRows()
	}
	set := newDistinctSet(int(min(rows, firstPageRows)))
	leaf := 0
	for i := range out.NumFields() {
		if leaves[i] != 1 {
			leaf += leaves[i]
			continue
		}
		col := sc.Column(leaf)
		leaf++
		path := col.Path()
		if !enabled(path) {
			continue
		}
		switch col.PhysicalType() {
		case parquet.Types.Boolean:
			continue
		case parquet.Types.FixedLenByteArray:
			if !pageV2 {
				res[path] = false
				continue
			}
		}
		cost, ok := columnCost(head, i, col.PhysicalType(), set)
		if !ok {
			continue
		}
		res[path] = cost.keep(dictLimit)
	}
	return res
}

// columnCost computes the first-page sizes of column c of head, counting
// distinct values with set. ok is false for array types it does not know
// (left to arrow-go's defaults).
func columnCost(head []arrow.RecordBatch, c int, phys parquet.Type, set *distinctSet) (cost dictCost, ok bool) {
	// Raw and dictionary bytes per value as FallbackValuesWriter and the
	// Plain*DictionaryValuesWriters count them: INT32/FLOAT 4, INT64/DOUBLE
	// 8, INT96 and FIXED_LEN_BYTE_ARRAY length + 4 raw (writeBytes) and
	// length in the dictionary, BYTE_ARRAY length + 4 both.
	var width, rawWidth int64
	switch phys {
	case parquet.Types.Int32, parquet.Types.Float:
		width, rawWidth = 4, 4
	case parquet.Types.Int64, parquet.Types.Double:
		width, rawWidth = 8, 8
	case parquet.Types.Int96:
		width, rawWidth = 12, 16
	case parquet.Types.ByteArray:
	default:
		return cost, false
	}
	set.reset()
	var (
		prevU   uint64
		prevW   [2]uint64
		prevS   string
		hasPrev bool
		wide    map[[2]uint64]struct{}
	)
	// A value equal to the previous one (runs of sorted keys) is known.
	fixed := func(k uint64) {
		cost.raw += rawWidth
		same := hasPrev && k == prevU
		if !same && set.addU64(k) {
			cost.dict += width
		}
		cost.rle.add(same)
		prevU, hasPrev = k, true
	}
	str := func(v string) {
		cost.raw += int64(len(v)) + 4
		same := hasPrev && v == prevS
		if !same && set.addStr(v) {
			cost.dict += int64(len(v)) + 4
		}
		cost.rle.add(same)
		prevS, hasPrev = v, true
	}
	rows := 0
	for _, rec := range head {
		if rows >= firstPageRows {
			break
		}
		arr := rec.Column(c)
		n := min(arr.Len(), firstPageRows-rows)
		rows += n
		nulls := arr.NullN() > 0
		switch a := arr.(type) {
		case *array.String:
			for j := range n {
				if !nulls || a.IsValid(j) {
					str(a.Value(j))
				}
			}
		case *array.Binary:
			for j := range n {
				if !nulls || a.IsValid(j) {
					str(a.ValueString(j))
				}
			}
		case *array.Int64:
			for j, v := range a.Int64Values()[:n] {
				if !nulls || a.IsValid(j) {
					fixed(uint64(v))
				}
			}
		case *array.Timestamp:
			for j, v := range a.TimestampValues()[:n] {
				if !nulls || a.IsValid(j) {
					fixed(uint64(v))
				}
			}
		case *array.Decimal128:
			if wide == nil {
				wide = map[[2]uint64]struct{}{}
			}
			for j := range n {
				if nulls && a.IsNull(j) {
					continue
				}
				d := a.Value(j)
				k := [2]uint64{d.LowBits(), uint64(d.HighBits())}
				cost.raw += rawWidth
				if _, seen := wide[k]; !seen {
					wide[k] = struct{}{}
					cost.dict += width
				}
				cost.rle.add(hasPrev && k == prevW)
				prevW, hasPrev = k, true
			}
		default:
			get, known := fixedValue(arr)
			if !known {
				return cost, false
			}
			for j := range n {
				if !nulls || arr.IsValid(j) {
					fixed(get(j))
				}
			}
		}
	}
	cost.distinct = int64(set.count + len(wide))
	cost.rle.finish()
	return cost, true
}

// fixedValue returns an accessor of the value bits of the fixed-width
// arrays the write schema holds for INT32, INT64, FLOAT, DOUBLE and INT96
// columns (equal bits, equal Parquet value).
func fixedValue(arr arrow.Array) (func(int) uint64, bool) {
	switch a := arr.(type) {
	case *array.Int8:
		return func(j int) uint64 { return uint64(a.Value(j)) }, true
	case *array.Int16:
		return func(j int) uint64 { return uint64(a.Value(j)) }, true
	case *array.Int32:
		return func(j int) uint64 { return uint64(a.Value(j)) }, true
	case *array.Date32:
		return func(j int) uint64 { return uint64(a.Value(j)) }, true
	case *array.Time32:
		return func(j int) uint64 { return uint64(a.Value(j)) }, true
	case *array.Time64:
		return func(j int) uint64 { return uint64(a.Value(j)) }, true
	case *array.Float32:
		return func(j int) uint64 { return uint64(math.Float32bits(a.Value(j))) }, true
	case *array.Float64:
		return func(j int) uint64 { return math.Float64bits(a.Value(j)) }, true
	}
	return nil, false
}

// distinctSet is an open-addressing hash set of the values of one column's
// first page, sized once for n values (load at most 1/2) and reused from
// column to column: a slot is taken when its mark equals the current
// stamp, so reset clears nothing. Strings are held by reference (they live
// in the held-back batches while the decision is made).
type distinctSet struct {
	marks []uint32
	keys  []uint64 // fixed-width values, or string hashes
	idx   []int32  // string slots: index into strs
	strs  []string
	stamp uint32
	shift uint
	count int
	seed  maphash.Seed
}

func newDistinctSet(n int) *distinctSet {
	k := bits.Len(uint(max(2*n, 16) - 1)) // 2^k >= 2n
	size := 1 << k
	return &distinctSet{marks: make([]uint32, size), keys: make([]uint64, size), shift: uint(64 - k), seed: maphash.MakeSeed()}
}

func (s *distinctSet) reset() {
	s.stamp++
	s.count = 0
	s.strs = s.strs[:0]
}

// slot is the home slot of hash h (Fibonacci hashing: the top bits of
// h times 2^64/phi).
func (s *distinctSet) slot(h uint64) int { return int((h * 0x9E3779B97F4A7C15) >> s.shift) }

// addU64 adds v and reports whether it is new.
func (s *distinctSet) addU64(v uint64) bool {
	mask := len(s.marks) - 1
	for i := s.slot(v); ; i = (i + 1) & mask {
		if s.marks[i] != s.stamp {
			s.marks[i], s.keys[i] = s.stamp, v
			s.count++
			return true
		}
		if s.keys[i] == v {
			return false
		}
	}
}

// addStr adds v and reports whether it is new.
func (s *distinctSet) addStr(v string) bool {
	if s.idx == nil {
		s.idx = make([]int32, len(s.marks))
	}
	h := maphash.String(s.seed, v)
	mask := len(s.marks) - 1
	for i := s.slot(h); ; i = (i + 1) & mask {
		if s.marks[i] != s.stamp {
			s.marks[i], s.keys[i], s.idx[i] = s.stamp, h, int32(len(s.strs))
			s.strs = append(s.strs, v)
			s.count++
			return true
		}
		if s.keys[i] == h && s.strs[s.idx[i]] == v {
			return false
		}
	}
}
