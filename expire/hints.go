package expire

import (
	"context"

	"github.com/paimon-go/paimon/snapshot"
)

// repairEarliest rewrites an EARLIEST hint that lies, naming a snapshot
// that does not exist while it stays put (snapshot.ConfirmEarliestHint),
// to earliest, the smallest snapshot id listed. Such a hint is what a
// rollback interrupted after deleting the hinted snapshot leaves; left in
// place it would, once commits reach its id, hide every older snapshot from
// readers and make the next expiration take them all as leftovers of an
// interrupted run. A hint naming an existing snapshot is left alone.
func repairEarliest(ctx context.Context, sm *snapshot.Manager, earliest int64) error {
	hint, ok, err := sm.EarliestHint(ctx)
	if err != nil || !ok || hint == earliest {
		return err
	}
	if _, holds, err := sm.ConfirmEarliestHint(ctx, hint); err != nil || holds {
		return err
	}
	return sm.CommitEarliestHint(ctx, earliest)
}
