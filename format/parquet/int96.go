package parquet

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/paimon-go/paimon/format"
)

// INT96 timestamps (Java Paimon writes TIMESTAMP(p > 6) and LTZ(p > 6) so,
// ParquetRowDataWriter.timestampToInt96): 8 bytes little-endian nanoseconds
// of the day, then 4 bytes little-endian Julian day. Java computes both with
// truncating division, so instants before 1970 have a NEGATIVE nanos-of-day
// (e.g. 1899-01-01 00:59:20.001001001 is stored as Julian day 2414657 and
// -82839998998999 ns). arrow-go rejects such values, so INT96 leaves are
// decoded here: the instant is (julianDay - 2440588) days + nanosOfDay ns,
// exactly as Java's reader (ParquetVectorUpdaterFactory.int96ToTimestamp).
const (
	julianEpochDay = 2440588
	nanosPerDay    = 86400 * 1_000_000_000
	nanosPerMilli  = 1_000_000
	millisPerDay   = 86400 * 1000
)

// int96ToMillisNanos returns the instant of an INT96 value as epoch
// milliseconds plus nanoseconds of the millisecond (0..999999), Java's
// org.apache.paimon.data.Timestamp representation.
func int96ToMillisNanos(v parquet.Int96) (millis int64, nanoOfMilli int32) {
	nanosOfDay := int64(binary.LittleEndian.Uint64(v[:8]))
	julian := int64(int32(binary.LittleEndian.Uint32(v[8:])))
	// |nanosOfDay| < 2^63 and |days| < 2^31: both terms fit in int64 ms.
	millis = (julian-julianEpochDay)*millisPerDay + nanosOfDay/nanosPerMilli
	n := nanosOfDay % nanosPerMilli
	if n < 0 {
		millis--
		n += nanosPerMilli
	}
	return millis, int32(n)
}

// int96ToUnit converts an INT96 value to an Arrow timestamp of unit
// (truncating sub-unit digits toward negative infinity); ok is false when
// the instant does not fit in int64 units.
func int96ToUnit(v parquet.Int96, unit arrow.TimeUnit) (int64, bool) {
	ms, nano := int96ToMillisNanos(v)
	var mul, add int64
	switch unit {
	case arrow.Second:
		return floorDiv(ms, 1000), true
	case arrow.Millisecond:
		return ms, true
	case arrow.Microsecond:
		mul, add = 1000, int64(nano)/1000
	default:
		mul, add = nanosPerMilli, int64(nano)
	}
	return mulAdd(ms, mul, add)
}

// mulAdd returns ms*mul + add for 0 <= add < mul without overflowing; ok is
// false when the result does not fit in int64.
func mulAdd(ms, mul, add int64) (int64, bool) {
	if ms >= 0 {
		if ms > (math.MaxInt64-add)/mul {
			return 0, false
		}
		return ms*mul + add, true
	}
	// ms*mul + add = (ms+1)*mul - (mul-add), both steps checked.
	if ms+1 < math.MinInt64/mul {
		return 0, false
	}
	r, sub := (ms+1)*mul, mul-add
	if r < math.MinInt64+sub {
		return 0, false
	}
	return r - sub, true
}

// javaInt96 encodes epoch milliseconds plus nano-of-millisecond as Java's
// ParquetRowDataWriter.timestampToInt96 does (truncating division). Only
// tests use it, to build Java-shaped INT96 bytes.
func javaInt96(millis int64, nanoOfMilli int32) parquet.Int96 {
	var out parquet.Int96
	julian := millis/millisPerDay + julianEpochDay
	nanosOfDay := (millis%millisPerDay)*nanosPerMilli + int64(nanoOfMilli)
	binary.LittleEndian.PutUint64(out[:8], uint64(nanosOfDay))
	binary.LittleEndian.PutUint32(out[8:], uint32(int32(julian)))
	return out
}

// int96Stream reads the raw levels and values of one INT96 leaf column chunk
// and hands them out record by record, in step with the pqarrow reader of
// the enclosing top-level field, whose INT96 leaf was read as arrow.Null
// (see nullifyInt96).
type int96Stream struct {
	rdr *file.Int96ColumnChunkReader
	// maxDef/maxRep are the leaf's maximum levels; slotDef is the definition
	// level from which a level entry is a slot of the leaf array (Arrow
	// LevelInfo.RepeatedAncestorDefLevel): lower levels are empty or null
	// lists above the leaf.
	maxDef, maxRep, slotDef int16

	defs, reps []int16
	vals       []parquet.Int96
	lpos, lend int // buffered levels [lpos, lend)
	vpos, vend int // buffered values [vpos, vend)
	eof        bool
}

const int96ReadChunk = 4096

func newInt96Stream(rdr *file.Int96ColumnChunkReader, slotDef int16) *int96Stream {
	d := rdr.Descriptor()
	return &int96Stream{
		rdr:     rdr,
		maxDef:  d.MaxDefinitionLevel(),
		maxRep:  d.MaxRepetitionLevel(),
		slotDef: slotDef,
		defs:    make([]int16, int96ReadChunk),
		reps:    make([]int16, int96ReadChunk),
		vals:    make([]parquet.Int96, int96ReadChunk),
	}
}

func (s *int96Stream) fill() error {
	if s.lpos < s.lend || s.eof {
		return nil
	}
	if s.vpos != s.vend {
		return fmt.Errorf("%w: INT96 column %s has %d values without levels", format.ErrCorrupt, s.rdr.Descriptor().Path(), s.vend-s.vpos)
	}
	total, nvals, err := s.rdr.ReadBatch(int96ReadChunk, s.vals, s.defs, s.reps)
	if err != nil {
		return fmt.Errorf("%w: INT96 column %s: %v", format.ErrCorrupt, s.rdr.Descriptor().Path(), err)
	}
	if total == 0 {
		s.eof = true
	}
	if total < 0 || total > int96ReadChunk || nvals < 0 || nvals > int(total) {
		return fmt.Errorf("%w: INT96 column %s: bad batch (%d levels, %d values)", format.ErrCorrupt, s.rdr.Descriptor().Path(), total, nvals)
	}
	s.lpos, s.lend, s.vpos, s.vend = 0, int(total), 0, nvals
	return nil
}

// take consumes the levels of the next n records and returns, per slot, the
// value and whether it is valid (non-null). A record starts at repetition
// level 0 (every level when the leaf is not repeated).
func (s *int96Stream) take(n int64) (vals []parquet.Int96, valid []bool, err error) {
	var records int64
	for {
		if err := s.fill(); err != nil {
			return nil, nil, err
		}
		if s.lpos >= s.lend {
			if records < n {
				return nil, nil, fmt.Errorf("%w: INT96 column %s ends after %d of %d records", format.ErrCorrupt, s.rdr.Descriptor().Path(), records, n)
			}
			return vals, valid, nil
		}
		def, rep := s.maxDef, int16(0)
		if s.maxDef > 0 {
			def = s.defs[s.lpos]
		}
		if s.maxRep > 0 {
			rep = s.reps[s.lpos]
		}
		if rep == 0 {
			if records == n {
				return vals, valid, nil
			}
			records++
		}
		s.lpos++
		if def < s.slotDef {
			continue
		}
		if def == s.maxDef {
			if s.vpos >= s.vend {
				return nil, nil, fmt.Errorf("%w: INT96 column %s has fewer values than defined levels", format.ErrCorrupt, s.rdr.Descriptor().Path())
			}
			vals = append(vals, s.vals[s.vpos])
			valid = append(valid, true)
			s.vpos++
		} else {
			vals = append(vals, parquet.Int96{})
			valid = append(valid, false)
		}
	}
}

// buildTimestamps makes the Arrow data of a timestamp leaf of type dt from
// the slots returned by take.
func buildTimestamps(mem memory.Allocator, dt *arrow.TimestampType, vals []parquet.Int96, valid []bool, path string) (arrow.ArrayData, error) {
	n := len(vals)
	data := memory.NewResizableBuffer(mem)
	data.Resize(n * 8)
	out := arrow.Int64Traits.CastFromBytes(data.Bytes())
	var bitmap *memory.Buffer
	nulls := 0
	for _, ok := range valid {
		if !ok {
			nulls++
		}
	}
	if nulls > 0 {
		bitmap = memory.NewResizableBuffer(mem)
		bitmap.Resize(int(bitutil.BytesForBits(int64(n))))
		bits := bitmap.Bytes()
		clear(bits)
		for i, ok := range valid {
			if ok {
				bitutil.SetBit(bits, i)
			}
		}
	}
	for i, v := range vals {
		if !valid[i] {
			out[i] = 0
			continue
		}
		ts, ok := int96ToUnit(v, dt.Unit)
		if !ok {
			data.Release()
			if bitmap != nil {
				bitmap.Release()
			}
			ms, nano := int96ToMillisNanos(v)
			return nil, fmt.Errorf("%w: column %s: INT96 timestamp %d ms + %d ns does not fit Arrow %s",
				format.ErrOutOfRange, path, ms, nano, dt)
		}
		out[i] = ts
	}
	d := array.NewData(dt, n, []*memory.Buffer{bitmap, data}, nil, nulls, 0)
	data.Release()
	if bitmap != nil {
		bitmap.Release()
	}
	return d, nil
}
