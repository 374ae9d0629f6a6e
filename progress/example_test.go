package progress_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/paimon-go/paimon/progress"
)

// Applies two commits' advances to the committed progress of a table, then
// shows the JSON of the offsets file (paimon-cpp's format) and a refused,
// non-contiguous advance.
func Example() {
	p0 := progress.PartitionBucket{Partition: map[string]string{"dt": "2026-12-01"}, Bucket: 0}
	p1 := progress.PartitionBucket{Partition: map[string]string{"dt": "2026-12-01"}, Bucket: 1}
	var o progress.Offsets
	o, err := progress.Apply(o, []progress.Advance{{PartitionBucket: p0, Range: progress.Range{Begin: 0, End: 100}}})
	if err != nil {
		log.Fatal(err)
	}
	o, err = progress.Apply(o, []progress.Advance{
		{PartitionBucket: p0, Range: progress.Range{Begin: 100, End: 250}},
		{PartitionBucket: p1, Range: progress.Range{Begin: 0, End: 40}},
	})
	if err != nil {
		log.Fatal(err)
	}
	end0, _ := o.End(p0)
	end1, _ := o.End(p1)
	fmt.Println("committed ends:", end0, end1)
	b, err := progress.Encode(o)
	if err != nil {
		log.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		log.Fatal(err)
	}
	fmt.Println(compact.String())
	_, err = progress.Apply(o, []progress.Advance{{PartitionBucket: p1, Range: progress.Range{Begin: 50, End: 60}}})
	fmt.Println(errors.Is(err, progress.ErrNotContiguous))
	// Output:
	// committed ends: 250 40
	// {"version":1,"offsets":[{"partition":{"dt":"2026-12-01"},"bucket":0,"offset":250},{"partition":{"dt":"2026-12-01"},"bucket":1,"offset":40}]}
	// true
}
