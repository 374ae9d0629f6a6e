package orc

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// This file decodes the protobuf messages of the ORC file tail and stripe
// footers (orc_proto.proto: PostScript, Footer, StripeInformation, Type,
// StripeFooter, Stream, ColumnEncoding) by field number, without generated
// code. Unknown fields are skipped, as protobuf requires.

// Compression kinds (orc_proto.proto CompressionKind).
const (
	compressionNone   = 0
	compressionZlib   = 1
	compressionSnappy = 2
	compressionLZO    = 3
	compressionLZ4    = 4
	compressionZstd   = 5
)

// Type kinds (orc_proto.proto Type.Kind).
const (
	kindBoolean          = 0
	kindByte             = 1
	kindShort            = 2
	kindInt              = 3
	kindLong             = 4
	kindFloat            = 5
	kindDouble           = 6
	kindString           = 7
	kindBinary           = 8
	kindTimestamp        = 9
	kindList             = 10
	kindMap              = 11
	kindStruct           = 12
	kindUnion            = 13
	kindDecimal          = 14
	kindDate             = 15
	kindVarchar          = 16
	kindChar             = 17
	kindTimestampInstant = 18
)

var kindNames = [...]string{
	"boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
	"string", "binary", "timestamp", "array", "map", "struct", "uniontype",
	"decimal", "date", "varchar", "char", "timestamp with local time zone",
}

func kindName(k uint64) string {
	if k < uint64(len(kindNames)) {
		return kindNames[k]
	}
	return "kind#" + itoa(k)
}

// Stream kinds (orc_proto.proto Stream.Kind).
const (
	streamPresent        = 0
	streamData           = 1
	streamLength         = 2
	streamDictionaryData = 3
	streamSecondary      = 5
)

var streamNames = map[uint64]string{
	0: "PRESENT", 1: "DATA", 2: "LENGTH", 3: "DICTIONARY_DATA",
	4: "DICTIONARY_COUNT", 5: "SECONDARY", 6: "ROW_INDEX", 7: "BLOOM_FILTER",
	8: "BLOOM_FILTER_UTF8", 9: "ENCRYPTED_INDEX", 10: "ENCRYPTED_DATA",
}

func streamName(k uint64) string {
	if s, ok := streamNames[k]; ok {
		return s
	}
	return "stream#" + itoa(k)
}

// Column encoding kinds (orc_proto.proto ColumnEncoding.Kind).
const (
	encodingDirect       = 0
	encodingDictionary   = 1
	encodingDirectV2     = 2
	encodingDictionaryV2 = 3
	encodingDecimal64    = 4
)

type postScript struct {
	footerLength   uint64
	compression    uint64
	blockSize      uint64
	version        []uint64
	metadataLength uint64
	writerVersion  uint64
	magic          string
}

type stripeInfo struct {
	offset       uint64
	indexLength  uint64
	dataLength   uint64
	footerLength uint64
	numberOfRows uint64
}

type orcType struct {
	kind       uint64
	subtypes   []uint64
	fieldNames []string
	maxLength  uint64
	precision  uint64
	scale      uint64
	hasPrec    bool
	attributes map[string]string
}

type footer struct {
	headerLength   uint64
	contentLength  uint64
	stripes        []stripeInfo
	types          []orcType
	numberOfRows   uint64
	rowIndexStride uint64
	writer         uint64
	encrypted      bool
}

type streamInfo struct {
	kind   uint64
	column uint64
	length uint64
}

type columnEncoding struct {
	kind           uint64
	dictionarySize uint64
}

type stripeFooter struct {
	streams        []streamInfo
	columns        []columnEncoding
	writerTimezone string
}

// pbField is one decoded protobuf field: v holds varint and fixed values, b
// the payload of length-delimited fields.
type pbField struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

// eachField calls fn for every field of the protobuf message b. what names
// the message in errors.
func eachField(b []byte, what string, fn func(f pbField) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return corruptf("%s: bad protobuf tag: %v", what, protowire.ParseError(n))
		}
		b = b[n:]
		f := pbField{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return corruptf("%s: bad protobuf field %d: %v", what, num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// uintValue returns the value of a scalar integer field, rejecting a
// length-delimited payload where a varint is expected.
func uintValue(f pbField, what string) (uint64, error) {
	if f.typ != protowire.VarintType {
		return 0, corruptf("%s: field %d has wire type %d, want varint", what, f.num, f.typ)
	}
	return f.v, nil
}

// appendRepeatedUint appends the values of a repeated uint field, accepting
// both the packed and the unpacked encoding.
func appendRepeatedUint(dst []uint64, f pbField, what string) ([]uint64, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(dst, f.v), nil
	case protowire.BytesType:
		b := f.b
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, corruptf("%s: bad packed field %d: %v", what, f.num, protowire.ParseError(n))
			}
			dst = append(dst, v)
			b = b[n:]
		}
		return dst, nil
	default:
		return nil, corruptf("%s: field %d has wire type %d, want varint", what, f.num, f.typ)
	}
}

func bytesValue(f pbField, what string) ([]byte, error) {
	if f.typ != protowire.BytesType {
		return nil, corruptf("%s: field %d has wire type %d, want bytes", what, f.num, f.typ)
	}
	return f.b, nil
}

func parsePostScript(b []byte) (*postScript, error) {
	const what = "postscript"
	ps := &postScript{}
	err := eachField(b, what, func(f pbField) error {
		var err error
		switch f.num {
		case 1:
			ps.footerLength, err = uintValue(f, what)
		case 2:
			ps.compression, err = uintValue(f, what)
		case 3:
			ps.blockSize, err = uintValue(f, what)
		case 4:
			ps.version, err = appendRepeatedUint(ps.version, f, what)
		case 5:
			ps.metadataLength, err = uintValue(f, what)
		case 6:
			ps.writerVersion, err = uintValue(f, what)
		case 8000:
			var v []byte
			v, err = bytesValue(f, what)
			ps.magic = string(v)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return ps, nil
}

func parseFooter(b []byte) (*footer, error) {
	const what = "footer"
	ft := &footer{}
	err := eachField(b, what, func(f pbField) error {
		var err error
		switch f.num {
		case 1:
			ft.headerLength, err = uintValue(f, what)
		case 2:
			ft.contentLength, err = uintValue(f, what)
		case 3:
			var m []byte
			if m, err = bytesValue(f, what); err == nil {
				var s stripeInfo
				s, err = parseStripeInfo(m)
				ft.stripes = append(ft.stripes, s)
			}
		case 4:
			var m []byte
			if m, err = bytesValue(f, what); err == nil {
				var t orcType
				t, err = parseType(m)
				ft.types = append(ft.types, t)
			}
		case 6:
			ft.numberOfRows, err = uintValue(f, what)
		case 8:
			ft.rowIndexStride, err = uintValue(f, what)
		case 9:
			ft.writer, err = uintValue(f, what)
		case 10:
			ft.encrypted = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return ft, nil
}

func parseStripeInfo(b []byte) (stripeInfo, error) {
	const what = "footer stripe information"
	var s stripeInfo
	err := eachField(b, what, func(f pbField) error {
		var err error
		switch f.num {
		case 1:
			s.offset, err = uintValue(f, what)
		case 2:
			s.indexLength, err = uintValue(f, what)
		case 3:
			s.dataLength, err = uintValue(f, what)
		case 4:
			s.footerLength, err = uintValue(f, what)
		case 5:
			s.numberOfRows, err = uintValue(f, what)
		}
		return err
	})
	return s, err
}

func parseType(b []byte) (orcType, error) {
	const what = "footer type"
	var t orcType
	err := eachField(b, what, func(f pbField) error {
		var err error
		switch f.num {
		case 1:
			t.kind, err = uintValue(f, what)
		case 2:
			t.subtypes, err = appendRepeatedUint(t.subtypes, f, what)
		case 3:
			var v []byte
			v, err = bytesValue(f, what)
			t.fieldNames = append(t.fieldNames, string(v))
		case 4:
			t.maxLength, err = uintValue(f, what)
		case 5:
			t.precision, err = uintValue(f, what)
			t.hasPrec = true
		case 6:
			t.scale, err = uintValue(f, what)
		case 7:
			var m []byte
			if m, err = bytesValue(f, what); err == nil {
				var k, v string
				k, v, err = parseStringPair(m)
				if t.attributes == nil {
					t.attributes = map[string]string{}
				}
				t.attributes[k] = v
			}
		}
		return err
	})
	return t, err
}

func parseStringPair(b []byte) (key, value string, err error) {
	const what = "type attribute"
	err = eachField(b, what, func(f pbField) error {
		v, err := bytesValue(f, what)
		switch f.num {
		case 1:
			key = string(v)
		case 2:
			value = string(v)
		}
		return err
	})
	return key, value, err
}

func parseStripeFooter(b []byte, what string) (*stripeFooter, error) {
	sf := &stripeFooter{}
	err := eachField(b, what, func(f pbField) error {
		var err error
		switch f.num {
		case 1:
			var m []byte
			if m, err = bytesValue(f, what); err == nil {
				var s streamInfo
				s, err = parseStream(m, what)
				sf.streams = append(sf.streams, s)
			}
		case 2:
			var m []byte
			if m, err = bytesValue(f, what); err == nil {
				var c columnEncoding
				c, err = parseColumnEncoding(m, what)
				sf.columns = append(sf.columns, c)
			}
		case 3:
			var v []byte
			v, err = bytesValue(f, what)
			sf.writerTimezone = string(v)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return sf, nil
}

func parseStream(b []byte, what string) (streamInfo, error) {
	what += " stream"
	var s streamInfo
	err := eachField(b, what, func(f pbField) error {
		var err error
		switch f.num {
		case 1:
			s.kind, err = uintValue(f, what)
		case 2:
			s.column, err = uintValue(f, what)
		case 3:
			s.length, err = uintValue(f, what)
		}
		return err
	})
	return s, err
}

func parseColumnEncoding(b []byte, what string) (columnEncoding, error) {
	what += " column encoding"
	var c columnEncoding
	err := eachField(b, what, func(f pbField) error {
		var err error
		switch f.num {
		case 1:
			c.kind, err = uintValue(f, what)
		case 2:
			c.dictionarySize, err = uintValue(f, what)
		}
		return err
	})
	return c, err
}

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}
