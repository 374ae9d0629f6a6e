package commit

import (
	"errors"
	"fmt"
)

// ErrNoProgress: creating the next snapshot keeps failing as if another
// committer had taken the id, but no snapshot can be read at that path: a
// directory or a junk object named snapshot-<id>, or a store that reports a
// refused write (a permission error) as a failed precondition. Retrying
// cannot help, so the commit gives up after maxPhantomLosses such losses in
// a row instead of spending commit.max-retries on them. The error names the
// path. Nothing was published.
var ErrNoProgress = errors.New("commit: no progress")

// maxPhantomLosses is how many races a commit part may lose in a row for
// one snapshot id that then cannot be read before it fails with
// ErrNoProgress. One such loss happens legitimately: another committer
// created the id in a gap an expiration left and took it back (see
// Committer.takeBackIfInGap); after it the table's latest snapshot is past
// the id, so the same id is not lost again unless something blocks it.
const maxPhantomLosses = 3

// phantoms counts the consecutive phantom losses of one commit part: races
// lost for an id whose snapshot file then did not exist (rebaser.base).
type phantoms struct {
	id int64 // the snapshot id of the last phantom loss
	n  int   // phantom losses in a row for id
}

// note records a phantom loss for the snapshot at path (id) and returns
// ErrNoProgress, wrapping cause (the failed read), once maxPhantomLosses in
// a row concerned that id.
func (p *phantoms) note(id int64, path string, cause error) error {
	if id != p.id {
		p.id, p.n = id, 0
	}
	p.n++
	if p.n < maxPhantomLosses {
		return nil
	}
	return fmt.Errorf("%w: %s: creating it failed %d times as if it existed, yet it cannot be read as a snapshot (a directory, a junk object, or a refused write reported as a failed precondition): %w",
		ErrNoProgress, path, p.n, cause)
}

// reset forgets the phantom losses: a race was lost to a snapshot that
// exists, so the table moves.
func (p *phantoms) reset() { p.id, p.n = 0, 0 }
