package writer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/writer"
)

// TestChangelogProducerRefused: a primary-key table whose changelog-producer
// expects changelog files from the writer is refused with ErrNoChangelog (and
// ErrUnsupported) naming the option, since streaming readers would miss rows
// committed without changelog: lookup or full-compaction tables whose
// changelog package compaction cannot produce (deletion vectors, first-row,
// lookup with another merge engine than deduplicate) unless write-only = true
// (a dedicated compaction job produces it then), and input tables writing
// into bucket-postpone files; input tables are written (TestInputChangelog).
func TestChangelogProducerRefused(t *testing.T) {
	for _, tc := range []struct {
		opts    map[string]string
		refused bool
	}{
		{map[string]string{}, false},
		{map[string]string{"changelog-producer": "none"}, false},
		{map[string]string{"changelog-producer": "input"}, false},
		{map[string]string{"changelog-producer": "input", "write-only": "true"}, false},
		{map[string]string{"changelog-producer": "input", "bucket": "-2"}, false},
		{map[string]string{"changelog-producer": "input", "bucket": "-2", "postpone.batch-write-fixed-bucket": "false"}, true},
		{map[string]string{"changelog-producer": "lookup"}, false},
		{map[string]string{"changelog-producer": "full-compaction"}, false},
		{map[string]string{"changelog-producer": "full-compaction", "merge-engine": "partial-update"}, false},
		{map[string]string{"changelog-producer": "lookup", "merge-engine": "partial-update"}, false},
		{map[string]string{"changelog-producer": "lookup", "merge-engine": "aggregation"}, false},
		{map[string]string{"changelog-producer": "lookup", "merge-engine": "first-row"}, false},
		{map[string]string{"changelog-producer": "lookup", "deletion-vectors.enabled": "true"}, false},
		{map[string]string{"changelog-producer": "full-compaction", "deletion-vectors.enabled": "true"}, true},
		{map[string]string{"changelog-producer": "full-compaction", "merge-engine": "first-row"}, true},
		{map[string]string{"changelog-producer": "lookup", "merge-engine": "aggregation", "write-only": "true"}, false},
		{map[string]string{"changelog-producer": "lookup", "write-only": "true"}, false},
		{map[string]string{"changelog-producer": "full-compaction", "write-only": "true"}, false},
	} {
		tbl := compactTable(t, tc.opts)
		w, err := writer.New(tbl.FileIO, tbl.Schema, "u")
		if !tc.refused {
			if err != nil {
				t.Errorf("%v: %v, want a writer", tc.opts, err)
				continue
			}
			w.Close()
			continue
		}
		if !errors.Is(err, writer.ErrNoChangelog) || !errors.Is(err, writer.ErrUnsupported) ||
			!strings.Contains(err.Error(), "changelog-producer = "+tc.opts["changelog-producer"]) {
			t.Errorf("%v: %v, want ErrNoChangelog and ErrUnsupported naming changelog-producer", tc.opts, err)
		}
	}
}
