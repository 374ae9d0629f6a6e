package reader

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/paimon-go/paimon/manifest"
)

// TestNetOnto checks netOnto against manifest.Net on the same sequence
// (live, then deltas) for random deltas over a live set whose file names
// repeat across partitions and levels: ADDs of new and of live files,
// DELETEs of live, of added and of unknown files (once and twice), and
// files deleted and added again. Both must fail (with manifest.ErrMerge)
// or both return the same entries in the same order.
func TestNetOnto(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 5))
	entry := func(kind manifest.FileKind, part, level, file int) manifest.Entry {
		return manifest.Entry{Kind: kind, Partition: []byte{byte(part)}, Bucket: 0, TotalBuckets: 1,
			File: manifest.DataFileMeta{FileName: fmt.Sprintf("data-%d.parquet", file), Level: int32(level)}}
	}
	failed, succeeded := 0, 0
	for round := range 2000 {
		var seq []manifest.Entry
		for i := range 20 {
			seq = append(seq, entry(manifest.Add, i%3, i%2, i/2))
		}
		live, err := manifest.Net(seq)
		if err != nil {
			t.Fatal(err)
		}
		var deltas []manifest.Entry
		for range rng.IntN(8) {
			switch rng.IntN(6) {
			case 0, 1: // a new file, or (rarely) a live one again
				deltas = append(deltas, entry(manifest.Add, rng.IntN(3), rng.IntN(2), 10+rng.IntN(6)))
			case 2, 3: // a live file or one added before
				e := live[rng.IntN(len(live))]
				if len(deltas) > 0 && rng.IntN(2) == 0 {
					e = deltas[rng.IntN(len(deltas))]
				}
				e.Kind = manifest.Delete
				deltas = append(deltas, e)
			case 4: // an unknown file
				deltas = append(deltas, entry(manifest.Delete, rng.IntN(3), rng.IntN(2), 100+rng.IntN(2)))
			case 5: // deleted, then added again
				e := live[rng.IntN(len(live))]
				e.Kind = manifest.Delete
				deltas = append(deltas, e)
				e.Kind = manifest.Add
				deltas = append(deltas, e)
			}
		}
		want, wantErr := manifest.Net(append(append([]manifest.Entry(nil), live...), deltas...))
		got, gotErr := netOnto(live, deltas)
		if (wantErr == nil) != (gotErr == nil) || (gotErr != nil && !errors.Is(gotErr, manifest.ErrMerge)) {
			t.Fatalf("round %d: netOnto error %v, Net error %v (deltas %v)", round, gotErr, wantErr, deltas)
		}
		if wantErr != nil {
			failed++
			continue
		}
		succeeded++
		if len(want) == 0 {
			want = nil
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: netOnto = %v, Net = %v (deltas %v)", round, got, want, deltas)
		}
	}
	// The generator's seed fixes these; both kinds of outcome must occur.
	if failed != 923 || succeeded != 1077 {
		t.Fatalf("%d rounds failed and %d succeeded", failed, succeeded)
	}
}
