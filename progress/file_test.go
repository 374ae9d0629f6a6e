package progress_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/progress"
)

func pb(bucket int32, kv ...string) progress.PartitionBucket {
	p := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i]] = kv[i+1]
	}
	return progress.PartitionBucket{Partition: p, Bucket: bucket}
}

// offsets builds Offsets from entries given in any order.
func offsets(es ...progress.Entry) progress.Offsets {
	var o progress.Offsets
	for _, e := range es {
		o = o.With(e.PartitionBucket, e.End)
	}
	return o
}

func entry(end int64, bucket int32, kv ...string) progress.Entry {
	return progress.Entry{PartitionBucket: pb(bucket, kv...), End: end}
}

// targetJSON is the offsets file of paimon-cpp's
// realtime_commit_properties_test (SerializeAndDeserializeTargetJson):
// three partition-buckets, RapidJSON's pretty writer, 4-space indent, no
// trailing newline.
const targetJSON = `{
    "version": 1,
    "offsets": [
        {
            "partition": {},
            "bucket": 0,
            "offset": 7
        },
        {
            "partition": {
                "dt": "2"
            },
            "bucket": 2,
            "offset": 9
        },
        {
            "partition": {
                "dt": "a/b",
                "region": "cn"
            },
            "bucket": 10,
            "offset": 12
        }
    ]
}`

func targetOffsets() progress.Offsets {
	// Inserted out of order: Offsets keeps partition-bucket order.
	return offsets(entry(12, 10, "region", "cn", "dt", "a/b"), entry(9, 2, "dt", "2"), entry(7, 0))
}

func TestEncodeTarget(t *testing.T) {
	got, err := progress.Encode(targetOffsets())
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != targetJSON {
		t.Errorf("Encode =\n%s\nwant\n%s", got, targetJSON)
	}
	o, err := progress.Decode([]byte(targetJSON))
	if err != nil {
		t.Fatal(err)
	}
	if !o.Equal(targetOffsets()) {
		t.Errorf("Decode = %v, want %v", o.Entries(), targetOffsets().Entries())
	}
	again, err := progress.Encode(o)
	if err != nil || string(again) != targetJSON {
		t.Errorf("round trip = %q, %v", again, err)
	}
}

func TestEncodeEmpty(t *testing.T) {
	got, err := progress.Encode(progress.Offsets{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "{\n    \"version\": 1,\n    \"offsets\": []\n}"
	if string(got) != want {
		t.Errorf("Encode(empty) = %q, want %q", got, want)
	}
	o, err := progress.Decode(got)
	if err != nil || o.Len() != 0 {
		t.Errorf("Decode(empty) = %v, %v", o.Entries(), err)
	}
}

// TestEncodeEscapes: only '"', '\\' and control characters are escaped
// (RapidJSON's Writer: \b \t \n \f \r, else \u00XX with upper-case hex);
// '/', '<', non-ASCII and U+2028 stay as they are.
func TestEncodeEscapes(t *testing.T) {
	value := "q\"b\\n\nt\tc\x01\x1f/<&é\u2028"
	got, err := progress.Encode(offsets(entry(1, 0, "k", value)))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n    \"version\": 1,\n    \"offsets\": [\n        {\n            \"partition\": {\n" +
		"                \"k\": \"q\\\"b\\\\n\\nt\\tc\\u0001\\u001F/<&é\u2028\"\n" +
		"            },\n            \"bucket\": 0,\n            \"offset\": 1\n        }\n    ]\n}"
	if string(got) != want {
		t.Errorf("Encode =\n%s\nwant\n%s", got, want)
	}
	o, err := progress.Decode(got)
	if err != nil {
		t.Fatal(err)
	}
	if p := o.Entries()[0].Partition["k"]; p != value {
		t.Errorf("decoded value %q, want %q", p, value)
	}
}

func TestEncodeRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		o    progress.Offsets
		msg  string
	}{
		{"negative bucket", offsets(entry(0, -1, "dt", "2")), "bucket -1 of {dt=2}/bucket--1"},
		{"negative offset", offsets(entry(-1, 0, "dt", "2")), "offset -1 of {dt=2}/bucket-0"},
		{"not UTF-8", offsets(entry(1, 0, "dt", "\xff")), "is not UTF-8"},
	} {
		_, err := progress.Encode(c.o)
		if !errors.Is(err, progress.ErrInvalidRange) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: Encode error %v, want ErrInvalidRange with %q", c.name, err, c.msg)
		}
	}
}

func TestDecodeAccepts(t *testing.T) {
	// Compact layout, entries out of order, unknown keys ignored.
	in := `{"offsets":[{"bucket":3,"offset":0,"partition":{"dt":"x"},"extra":[1]},` +
		`{"partition":{},"bucket":0,"offset":9223372036854775807}],"version":1,"comment":"hi"}` + " \n\t"
	o, err := progress.Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := offsets(entry(9223372036854775807, 0), entry(0, 3, "dt", "x"))
	if !o.Equal(want) {
		t.Errorf("Decode = %v, want %v", o.Entries(), want.Entries())
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{``, "unexpected EOF"},
		{`{`, "unexpected EOF"},
		{`[]`, "the top level must be an object, got an array"},
		{`null`, "the top level must be an object, got null"},
		{`{"offsets":[]}`, `key "version" missing in the top level`},
		{`{"version":1}`, `key "offsets" missing`},
		{`{"version":2,"offsets":[]}`, "unsupported offsets version 2"},
		{`{"version":"1","offsets":[]}`, `"version" in the top level must be an int32, got a string`},
		{`{"version":1.0,"offsets":[]}`, `must be an int32, got 1.0`},
		{`{"version":1,"offsets":{}}`, `"offsets" must be an array, got an object`},
		{`{"version":1,"offsets":[1]}`, "offsets[0] must be an object, got the number 1"},
		{`{"version":1,"offsets":[{"bucket":0,"offset":1}]}`, `key "partition" missing in offsets[0]`},
		{`{"version":1,"offsets":[{"partition":{},"bucket":0}]}`, `key "offset" missing in offsets[0]`},
		{`{"version":1,"offsets":[{"partition":{},"offset":1}]}`, `key "bucket" missing in offsets[0]`},
		{`{"version":1,"offsets":[{"partition":"dt=2","bucket":0,"offset":1}]}`, "offsets[0].partition must be an object, got a string"},
		{`{"version":1,"offsets":[{"partition":{"dt":2},"bucket":0,"offset":1}]}`, `offsets[0].partition["dt"] must be a string, got the number 2`},
		{`{"version":1,"offsets":[{"partition":{},"bucket":"0","offset":1}]}`, `"bucket" in offsets[0] must be an int32, got a string`},
		{`{"version":1,"offsets":[{"partition":{},"bucket":2147483648,"offset":1}]}`, `must be an int32, got 2147483648`},
		{`{"version":1,"offsets":[{"partition":{},"bucket":0,"offset":"1"}]}`, `"offset" in offsets[0] must be an int64, got a string`},
		{`{"version":1,"offsets":[{"partition":{},"bucket":0,"offset":9223372036854775808}]}`, `must be an int64, got 9223372036854775808`},
		{`{"version":1,"offsets":[{"partition":{},"bucket":-1,"offset":1}]}`, "invalid bucket -1 in offsets[0]"},
		{`{"version":1,"offsets":[{"partition":{},"bucket":0,"offset":-1}]}`, "invalid offset -1 in offsets[0]"},
		{`{"version":1,"offsets":[{"partition":{"dt":"a/b"},"bucket":0,"offset":1},{"partition":{"dt":"a/b"},"bucket":0,"offset":2}]}`,
			"duplicate partition-bucket {dt=a/b}/bucket-0"},
		{`{"version":1,"version":1,"offsets":[]}`, `key "version" repeated`},
		{`{"version":1,"offsets":[]} x`, "data after the top-level object"},
		{`{"version":1,"offsets":[]}{}`, "data after the top-level object"},
		{"{\"version\":1,\"offsets\":[{\"partition\":{\"dt\":\"\xff\"},\"bucket\":0,\"offset\":1}]}", "not UTF-8"},
	} {
		_, err := progress.Decode([]byte(c.in))
		if !errors.Is(err, progress.ErrCorrupt) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Decode(%s) error %v, want ErrCorrupt with %q", c.in, err, c.msg)
		}
	}
}
