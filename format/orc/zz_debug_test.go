package orc

import (
	"strings"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"context"
	"fmt"
	"os"
	"testing"
)

func TestZZDebugDump(t *testing.T) {
	path := os.Getenv("ORC_DUMP")
	if path == "" {
		t.Skip()
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := fh.Stat()
	f, err := Open(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(f.Schema())
	for i, ty := range f.ft.types {
		fmt.Println(i, kindName(ty.kind), ty.attributes)
	}
	fmt.Printf("ps %+v\n", *f.ps)
	recs, err := f.Read(context.Background(), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		for i, c := range r.Columns() {
			fmt.Println(r.ColumnName(i), c)
		}
	}
}

func TestZZDebugRawTypes(t *testing.T) {
	path := os.Getenv("ORC_DUMP")
	if path == "" {
		t.Skip()
	}
	fh, _ := os.Open(path)
	st, _ := fh.Stat()
	f, err := Open(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, st.Size())
	fh.ReadAt(buf, 0)
	psLen := int(buf[len(buf)-1])
	fend := len(buf) - 1 - psLen
	fb, _ := f.codec.decompress(buf[fend-int(f.ps.footerLength):fend], "x")
	eachField(fb, "f", func(fl pbField) error {
		if fl.num == 4 {
			eachField(fl.b, "t", func(g pbField) error {
				fmt.Printf("%d:%d:%v:%q ", g.num, g.typ, g.v, g.b)
				return nil
			})
			fmt.Println()
		} else if fl.num != 3 && fl.num != 7 {
			fmt.Printf("footer field %d %v %q\n", fl.num, fl.v, fl.b)
		}
		return nil
	})
	sd, err := f.loadStripe(0, make([]bool, len(f.ft.types)))
	fmt.Printf("tz=%q enc=%v err=%v\n", sd.timezone, sd.enc, err)
}

func TestZZDebugIPC(t *testing.T) {
	list := os.Getenv("ORC_LIST")
	if list == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(list)
	for _, path := range strings.Fields(string(data)) {
		fh, _ := os.Open(path)
		st, _ := fh.Stat()
		f, err := Open(fh, st.Size())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs, err := f.Read(context.Background(), ReadOptions{BatchRows: 3})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out, _ := os.Create("/tmp/orcdump/" + strings.ReplaceAll(path, "/", "_") + ".arrow")
		w, err := ipc.NewFileWriter(out, ipc.WithSchema(f.Schema()))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		out.Close()
		fh.Close()
	}
}

func TestZZDebugStream(t *testing.T) {
	path := os.Getenv("ORC_DUMP")
	if path == "" {
		t.Skip()
	}
	fh, _ := os.Open(path)
	st, _ := fh.Stat()
	f, err := Open(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	need := make([]bool, len(f.ft.types))
	col := 17
	need[col] = true
	sd, err := f.loadStripe(0, need)
	if err != nil {
		t.Fatal(err)
	}
	buf := sd.streams[streamKey{uint64(col), 5}]
	fmt.Printf("enc %v len %d first bytes % x\n", sd.enc[col], len(buf), buf[:min(64, len(buf))])
	d := &intRLEv2{buf: buf, what: "x"}
	for i := 0; i < 6 && d.pos < len(buf); i++ {
		h := buf[d.pos]
		at := d.pos
		if err := d.run(); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("run at %d type %d n=%d vals=%v\n", at, h>>6, len(d.vals), d.vals[:min(8, len(d.vals))])
	}
}

func TestZZDebugRunKinds(t *testing.T) {
	list := os.Getenv("ORC_LIST")
	if list == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(list)
	counts := map[string]int{}
	for _, path := range strings.Fields(string(data)) {
		fh, _ := os.Open(path)
		st, _ := fh.Stat()
		f, err := Open(fh, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		need := make([]bool, len(f.ft.types))
		for i := range need {
			need[i] = true
		}
		for si := range f.ft.stripes {
			sd, err := f.loadStripe(si, need)
			if err != nil {
				t.Fatal(err)
			}
			for k, buf := range sd.streams {
				ty := f.ft.types[k.column]
				intStream := k.kind == streamLength || k.kind == streamSecondary ||
					(k.kind == streamData && (ty.kind == kindShort || ty.kind == kindInt || ty.kind == kindLong || ty.kind == kindDate || ty.kind == kindTimestamp || ty.kind == kindTimestampInstant)) ||
					(k.kind == streamData && (sd.enc[k.column].kind == 1 || sd.enc[k.column].kind == 3))
				if !intStream {
					continue
				}
				v2 := sd.enc[k.column].kind >= 2
				if !v2 {
					counts["v1"]++
					continue
				}
				d := &intRLEv2{buf: buf, what: "x"}
				for d.pos < len(buf) {
					h := buf[d.pos]
					if err := d.run(); err != nil {
						t.Fatal(err)
					}
					counts[[]string{"short", "direct", "patched", "delta"}[h>>6]]++
				}
			}
		}
		encs := map[uint64]int{}
		if len(f.ft.stripes) == 0 {
			continue
		}
		sd, _ := f.loadStripe(0, need)
		for _, e := range sd.enc {
			encs[e.kind]++
		}
		fmt.Println(path[strings.LastIndex(path, "/")+1:], "encodings", encs)
	}
	fmt.Println(counts)
}
