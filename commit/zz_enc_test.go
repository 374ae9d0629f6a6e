package commit

import (
	"testing"
)

func BenchmarkZZEncodeDelta(b *testing.B) {
	fio, ts := memTable(b)
	c, _ := New(fio, ts, "u")
	msgs := fileMsg("f1")
	parts, _ := c.parts(msgs)
	for b.Loop() {
		files, metas, err := c.mw.encodeManifests(parts[0].entries)
		if err != nil {
			b.Fatal(err)
		}
		_ = files
		if _, err := c.mw.encodeList(metas); err != nil {
			b.Fatal(err)
		}
	}
}

