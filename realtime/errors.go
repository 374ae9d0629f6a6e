package realtime

import "errors"

// Errors of the Context, Write, Commit and Scan; test with errors.Is. The
// store errors (ErrOffsetOrder, ErrSchemaMismatch, ErrForeignHandle,
// ErrClosed) are declared with the Store contract.
var (
	// ErrNotEnabled: the table does not set realtime.enabled=true, which
	// every real-time operation requires (paimon-cpp rejects real-time
	// writers, scans, reads and CommitWithProgress the same way).
	ErrNotEnabled = errors.New("realtime: table option realtime.enabled=true is required")
	// ErrNilFactory: NewContext was given a nil Factory.
	ErrNilFactory = errors.New("realtime: nil store factory")
	// ErrUnsupported: a table the real-time layer does not serve, such as
	// one without a fixed bucket count (bucket <= 0).
	ErrUnsupported = errors.New("realtime: unsupported table")
	// ErrRecreateContext: RefreshCommittedSnapshot was given a snapshot
	// whose progress does not extend the context's (overwrite, truncate,
	// rollback, a dropped partition this context writes). The context's
	// memory is unchanged; the documented recovery is a new Context and a
	// replay from the snapshot's committed offsets.
	ErrRecreateContext = errors.New("realtime: snapshot does not extend the context's progress; recreate the real-time context")
	// ErrTicketExpired: a real-time split whose ticket was consumed by an
	// earlier read, expired (realtime.read-view-ttl), released, or belongs
	// to another context.
	ErrTicketExpired = errors.New("realtime: ticket does not exist or has expired")
	// ErrSnapshotTooOld: a scan or refresh names a snapshot older than the
	// one the context has adopted, whose memory may already be reclaimed.
	ErrSnapshotTooOld = errors.New("realtime: snapshot is older than the context's committed progress")
	// ErrRealtimeWriter: PrepareCommit on a real-time Write, which would
	// lose the offset ranges; use PrepareCommitWithProgress.
	ErrRealtimeWriter = errors.New("realtime: PrepareCommit is not allowed on a real-time writer; use PrepareCommitWithProgress")
	// ErrUnprepared: Close of a Write that still has accepted rows not
	// covered by a successful PrepareCommitWithProgress. The rows stay
	// readable through the context and the Write stays open.
	ErrUnprepared = errors.New("realtime: writer holds rows that are not prepared for commit")
)
