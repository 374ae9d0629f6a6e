package merge

import (
	"github.com/apache/arrow-go/v18/arrow"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func BenchmarkZZEncodeComposite(b *testing.B) {
	rec := compositeInputOne()
	var keys []colView
	cls := []class{clsBytes, clsBytes, clsI64}
	for k := range 3 {
		var v colView
		if err := v.load(cls[k], rec.Column(k)); err != nil {
			b.Fatal(err)
		}
		keys = append(keys, v)
	}
	n := int(rec.NumRows())
	dst := normKeys{hi: make([]uint64, n), lo: make([]uint64, n)}
	var e keyEncoder
	for b.Loop() {
		clear(dst.hi)
		clear(dst.lo)
		e.encode(&dst, cls, keys)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
}

func compositeInputOne() arrow.RecordBatch {
	runs, _ := compositeInput()
	_ = memory.DefaultAllocator
	_ = array.NewInt64Builder
	return runs[1][3]
}
