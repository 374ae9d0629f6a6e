package commit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paimon-go/paimon/fileio"
)

// ErrOutcomeUnknown: creating the snapshot may have succeeded, and reading
// snapshot-N back (with retries and backoff) could not tell whether the
// file there is this commit's. Nothing the snapshot could refer to was
// deleted: if it was not published, the files written for it are orphans
// for orphan cleaning. Retrying the same commit identifier under the same
// commit user is safe: the retry finds the snapshot if it was published
// (committed-identifier filter, Java TableCommitImpl.filterCommitted) and
// commits otherwise. The error names the snapshot file and wraps the
// store's errors.
var ErrOutcomeUnknown = errors.New("commit: outcome unknown")

// outcomeResolver settles a create-if-absent of a snapshot file whose
// outcome fileio could not tell (fileio.ErrOutcomeUnknown): it reads the
// file back, up to rounds times with doubling waits from wait, until a read
// answers, and compares the bytes with those written. There is no Java
// counterpart: Java's FileStoreCommitImpl.tryCommitOnce leaves such a commit
// to the caller's retry through filterCommitted.
type outcomeResolver struct {
	fio    *fileio.FileIO
	sleep  func(context.Context, time.Duration) error
	rounds int           // reads at most (each with fileio's own retries)
	wait   time.Duration // before the second read; doubles after
}

// newOutcomeResolver returns the resolver the Committer uses: 4 reads,
// waiting 100, 200 and 400 ms between them (each read retries transient
// errors itself), so an unanswered store is given up after about 2 s.
func newOutcomeResolver(fio *fileio.FileIO, sleep func(context.Context, time.Duration) error) outcomeResolver {
	return outcomeResolver{fio: fio, sleep: sleep, rounds: 4, wait: 100 * time.Millisecond}
}

// resolve settles the create of path with data that failed with createErr.
// It returns nil if path holds exactly data (the create was applied and
// only its answer was lost), an error wrapping fileio.ErrExist if it holds
// other bytes (another writer took the id), and createErr (annotated) if
// there is no file (the create was not applied). If no read
// answers, the error wraps ErrOutcomeUnknown, createErr and the last
// read's error. Errors other than fileio.ErrOutcomeUnknown are returned as
// they are (the create's outcome is known). The reads ignore ctx's
// cancellation: a cancelled commit still learns what it did.
func (r outcomeResolver) resolve(ctx context.Context, path string, data []byte, createErr error) error {
	if !errors.Is(createErr, fileio.ErrOutcomeUnknown) {
		return createErr
	}
	ctx = context.WithoutCancel(ctx)
	var rerr error
	for i := range r.rounds {
		if i > 0 {
			if err := r.sleep(ctx, r.wait<<(i-1)); err != nil {
				break
			}
		}
		var got []byte
		got, rerr = r.fio.ReadFile(ctx, path)
		switch {
		case rerr == nil && bytes.Equal(got, data):
			return nil
		case rerr == nil:
			return fmt.Errorf("commit: create %s: another writer's file is there (the create's answer was lost): %w", path, fileio.ErrExist)
		case errors.Is(rerr, fileio.ErrNotExist):
			return fmt.Errorf("%w (%s is absent: not created)", createErr, path)
		}
	}
	return fmt.Errorf("%w: create %s may have been applied and %d reads of it failed: %w",
		ErrOutcomeUnknown, path, r.rounds, errors.Join(createErr, rerr))
}
