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
