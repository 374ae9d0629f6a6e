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
// files from this writer (Java CoreOptions.ChangelogProducer,
// ChangelogProducer.INPUT in MergeTreeWriter, LOOKUP and FULL_COMPACTION in
// the compaction's changelog rewriters). With write-only = true a lookup or
// full-compaction table is accepted: the writer does not compact then, and
// the changelog of its level-0 files is produced by the dedicated compaction
// job (Java's documented way of writing with several jobs); input tables
// are refused always, since their changelog is the written input itself.
func checkChangelog(o schema.Options) error {
	cp, err := o.ChangelogProducer()
	if err != nil {
		return err
	}
	switch cp {
	case schema.ChangelogNone:
		return nil
	case schema.ChangelogInput:
		return fmt.Errorf("%w: %w: %s = %s (the writer would have to write its input as changelog files; streaming readers would miss these rows)",
			ErrUnsupported, ErrNoChangelog, schema.KeyChangelogProducer, cp)
	}
	writeOnly, err := o.WriteOnly()
	if err != nil {
		return err
	}
	if writeOnly {
		return nil
	}
	return fmt.Errorf("%w: %w: %s = %s (this writer's compactions would have to write changelog files; streaming readers would miss these rows; with write-only = true a dedicated Java compaction job produces them)",
		ErrUnsupported, ErrNoChangelog, schema.KeyChangelogProducer, cp)
}
