package avro

import (
	"bytes"
	"math/big"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/paimon-go/paimon/format"
	"github.com/paimon-go/paimon/types"
)

// TestHambaReadsOurFile: an independent Avro implementation (hamba/avro)
// decodes the file we write for every type, with the values we wrote.
func TestHambaReadsOurFile(t *testing.T) {
	fields := allTypes()
	rec := recordFromJSON(t, fields, allTypesJSON)
	defer rec.Release()
	data, _ := writeFile(t, fields, map[string]string{OptionFileCompression: "deflate"}, rec)
	d, err := ocf.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for d.HasNext() {
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		// The ["null", record] union decodes as {record name: fields}.
		u, _ := v.(map[string]any)
		r, _ := u["org.apache.paimon.avro.generated.record"].(map[string]any)
		if r == nil {
			t.Fatalf("datum %v", v)
		}
		rows = append(rows, r)
	}
	if d.Error() != nil || len(rows) != 3 {
		t.Fatalf("%d rows, err %v", len(rows), d.Error())
	}
	r0 := rows[0]
	dec, _ := r0["dec9"].(*big.Rat)
	if r0["i"] != 1 || r0["v"] != "héllo" || dec == nil || dec.RatString() != "123456789/100" || r0["t"] != -128 {
		t.Fatalf("row 0: i=%v v=%v dec9=%v t=%v", r0["i"], r0["v"], r0["dec9"], r0["t"])
	}
	if rows[1]["v"] != nil || rows[1]["i"] != 2 {
		t.Fatalf("row 1: %v", rows[1])
	}
}

// TestReadOtherWriterShapes reads a file hamba/avro writes with shapes
// Java never writes but Avro allows: a plain top-level record, unions with
// null last, a decimal as fixed, a long read as BIGINT from an int.
func TestReadOtherWriterShapes(t *testing.T) {
	schema := hamba.MustParse(`{"type":"record","name":"r","fields":[
		{"name":"a","type":["int","null"]},
		{"name":"skip","type":{"type":"array","items":{"type":"map","values":"string"}}},
		{"name":"d","type":{"type":"fixed","name":"f16","size":16,"logicalType":"decimal","precision":20,"scale":2}},
		{"name":"s","type":"string"}]}`)
	var buf bytes.Buffer
	enc, err := ocf.NewEncoderWithSchema(schema, &buf, ocf.WithCodec(ocf.Snappy))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []map[string]any{
		{"a": 5, "skip": []any{map[string]any{"k": "v"}}, "d": big.NewRat(-12345, 100), "s": "x"},
		{"a": nil, "skip": []any{}, "d": big.NewRat(1, 100), "s": ""},
	} {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	f := types.Field
	want := []types.DataField{f(0, "s", types.String()), f(1, "a", types.BigInt()), f(2, "d", types.DecimalOf(20, 2))}
	recs, _, err := readAll(t, buf.Bytes(), want, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := jsonOf(t, recs...)
	const exp = `[{"a":5,"d":"-123.45","s":"x"}` + "\n]" + `[{"a":null,"d":"0.01","s":""}` + "\n]"
	if got != exp {
		t.Fatalf("read %s\nwant %s", got, exp)
	}
	for _, r := range recs {
		r.Release()
	}
}
