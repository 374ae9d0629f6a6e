package writer

import (
	"errors"
	"fmt"

	"github.com/paimon-go/paimon/schema"
)

// ErrNoChangelog reports a write into a primary-key table whose
// changelog-producer (input, lookup or full-compaction) asks the writer or
// its compaction to write changelog files, which this library does not
// produce yet. Streaming readers of such tables (Flink, Java's
// StreamTableScan) read those changelog files only, so rows committed
// without them would be missed silently. Errors wrapping it also wrap
// ErrUnsupported and name the option.
var ErrNoChangelog = errors.New("writer: changelog files are not produced")

// checkChangelog refuses tables whose changelog-producer expects changelog
// files this writer does not produce (Java CoreOptions.ChangelogProducer):
// input, whose changelog is the written input itself
// (MergeTreeWriter with ChangelogProducer.INPUT). Lookup and full-compaction
// tables are accepted: their changelog comes from the compactions
// (package compaction), which initCompaction sets up, or refuses with
// ErrNoChangelog when package compaction cannot produce it for the table.
func checkChangelog(o schema.Options) error {
	cp, err := o.ChangelogProducer()
	if err != nil {
		return err
	}
	if cp == schema.ChangelogInput {
		return fmt.Errorf("%w: %w: %s = %s (the writer would have to write its input as changelog files; streaming readers would miss these rows)",
			ErrUnsupported, ErrNoChangelog, schema.KeyChangelogProducer, cp)
	}
	return nil
}

// compactionChangelog reports whether the compactions of the table produce
// its changelog (changelog-producer = lookup or full-compaction).
func compactionChangelog(o schema.Options) (schema.ChangelogProducer, bool, error) {
	cp, err := o.ChangelogProducer()
	if err != nil {
		return cp, false, err
	}
	return cp, cp == schema.ChangelogLookup || cp == schema.ChangelogFullCompaction, nil
}
