package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	paimon "github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
)

// Defaults of Config.
const (
	DefaultCommitInterval  = time.Second
	DefaultMaxMessageBytes = 16 << 20
	DefaultMaxMemoryBytes  = 512 << 20
)

// Errors of New and Serve.
var (
	// ErrNoToken: a server without a bearer token is refused.
	ErrNoToken = errors.New("serve: a bearer token is required")
	// ErrServing: Serve was called twice.
	ErrServing = errors.New("serve: already serving")
	// ErrMemoryFull: the server holds Config.MaxMemoryBytes even after
	// committing (Flight status ResourceExhausted); retry later.
	ErrMemoryFull = errors.New("serve: memory limit reached")
)

// Config configures a Server.
type Config struct {
	// Token is the bearer token every call must carry ("authorization:
	// Bearer <token>"); required.
	Token string
	// CommitInterval is the period of the commit loop (DefaultCommitInterval
	// when 0; negative disables the loop: commits only on the "commit"
	// action and at Shutdown).
	CommitInterval time.Duration
	// MaxMessageBytes bounds one received gRPC message (a DoPut batch, an
	// action body); DefaultMaxMessageBytes when 0.
	MaxMessageBytes int
	// TLS serves over TLS when not nil.
	TLS *tls.Config
	// CommitUser is the commit user of the server's commits
	// ("paimon-serve-<uuid>" when empty).
	CommitUser string
	// Logger receives commit-loop events (slog.Default when nil).
	Logger *slog.Logger
	// Advertise is the host:port recorded in the table's service file
	// (the listener's address when empty).
	Advertise string
	// Allocator allocates the rows held in memory (realtime.WithAllocator;
	// Arrow's default when nil).
	Allocator memory.Allocator
	// MaxMemoryBytes bounds the bytes the server holds in memory
	// (realtime.Usage, building and sealed): a DoPut batch arriving above
	// it first commits what the server holds (backpressure instead of
	// unbounded growth), and is refused with ResourceExhausted when the
	// server still holds more after that commit. DefaultMaxMemoryBytes when
	// 0. The data files lookups keep decoded are bounded apart, by the
	// table's lookup.cache-max-memory-size (reader.LookupCache, 256 MiB by
	// default).
	MaxMemoryBytes int64
}

// Server serves one real-time table over Arrow Flight: it owns a
// real-time context of the table (realtime.Context), ingests DoPut batches
// into it, serves union and real-time-only reads and lookups, and commits
// what it holds every CommitInterval and at Shutdown. See the package
// documentation for the protocol.
type Server struct {
	t   *paimon.Table
	cfg Config
	log *slog.Logger

	mu  sync.RWMutex // guards rc, w, cm (swapped by rebuild)
	rc  *realtime.Context
	w   *realtime.Write
	cm  *realtime.Commit
	gen string // generation of the rows held: new with each context (open)

	commitMu sync.Mutex // serialises commits and rebuilds; guards the fields below
	ident    int64
	// pending is a prepared commit whose publication failed, with its
	// identifier and the failed attempts so far; refreshID a landed
	// snapshot the context has not been refreshed to.
	pending      []realtime.Progress
	pendingIdent int64
	tries        int
	refreshID    int64

	gs       *grpc.Server
	lis      net.Listener
	location string
	stop     chan struct{}
	loopDone chan struct{}
	serving  bool
	closed   bool // Shutdown began
	final    bool // the context is closed
	// served is closed when the Serve started by Start returns, with
	// serveErr its error; nil without Start.
	served   chan struct{}
	serveErr error
}

// New opens the real-time context of t (paimon.Table.NewRealtimeContext;
// the table must set realtime.enabled=true and a fixed bucket count) with
// its writer and committer. The context adopts the latest snapshot's
// committed progress, so a restarted server continues where the last one
// committed; producers replay from the "progress" action's offsets.
// Errors: ErrNoToken, and those of NewRealtimeContext, NewWrite, NewCommit.
func New(t *paimon.Table, cfg Config) (*Server, error) {
	if cfg.Token == "" {
		return nil, ErrNoToken
	}
	if cfg.CommitInterval == 0 {
		cfg.CommitInterval = DefaultCommitInterval
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.MaxMemoryBytes <= 0 {
		cfg.MaxMemoryBytes = DefaultMaxMemoryBytes
	}
	if cfg.CommitUser == "" {
		cfg.CommitUser = "paimon-serve-" + uuid.NewString()
	}
	s := &Server{t: t, cfg: cfg, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

// open creates the context, writer and committer.
func (s *Server) open() error {
	var opts []realtime.ContextOption
	if s.cfg.Allocator != nil {
		opts = append(opts, realtime.WithAllocator(s.cfg.Allocator))
	}
	rc, err := s.t.NewRealtimeContext(opts...)
	if err != nil {
		return err
	}
	w, err := rc.NewWrite(s.cfg.CommitUser)
	if err != nil {
		_ = rc.Close()
		return err
	}
	cm, err := rc.NewCommit(s.cfg.CommitUser)
	if err != nil {
		_ = w.Close()
		_ = rc.Close()
		return err
	}
	s.mu.Lock()
	s.rc, s.w, s.cm, s.gen = rc, w, cm, uuid.NewString()
	s.mu.Unlock()
	return nil
}

// closeState closes the context, writer and committer.
func (s *Server) closeState() error {
	s.mu.Lock()
	rc, w, cm := s.rc, s.w, s.cm
	s.mu.Unlock()
	return errors.Join(w.Close(), cm.Close(), rc.Close())
}

// state returns the current context and writer.
func (s *Server) state() (*realtime.Context, *realtime.Write) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rc, s.w
}

// writeState returns the current writer and generation.
func (s *Server) writeState() (*realtime.Write, string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.w, s.gen
}

// Serve serves Flight on lis until Shutdown, after recording the address
// in the table's service file (service/service-realtime-flight,
// WriteService). It returns nil after Shutdown. It refuses a table whose
// service file names another server that answers (ErrTableServed): one
// server commits a table's real-time progress. Errors: ErrServing,
// ErrTableServed, and those of the service file and of gRPC.
func (s *Server) Serve(lis net.Listener) error {
	s.mu.Lock()
	if s.serving || s.closed {
		s.mu.Unlock()
		return ErrServing
	}
	s.serving = true
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(s.cfg.MaxMessageBytes),
		grpc.ChainUnaryInterceptor(recoverUnary(s.log), authUnary(s.cfg.Token)),
		grpc.ChainStreamInterceptor(recoverStream(s.log), authStream(s.cfg.Token)),
	}
	if s.cfg.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(s.cfg.TLS)))
	}
	s.gs = grpc.NewServer(opts...)
	flight.RegisterFlightServiceServer(s.gs, &service{s: s})
	s.lis = lis
	addr := s.cfg.Advertise
	if addr == "" {
		addr = lis.Addr().String()
	}
	scheme := "grpc+tcp"
	if s.cfg.TLS != nil {
		scheme = "grpc+tls"
	}
	loc := scheme + "://" + addr
	s.stop = make(chan struct{})
	s.loopDone = make(chan struct{})
	s.mu.Unlock()

	if err := claim(context.Background(), s.t.FileIO(), loc); err != nil {
		close(s.loopDone)
		return err
	}
	rec := Service{Location: loc, PID: os.Getpid(), CommitUser: s.cfg.CommitUser, Started: time.Now().UTC().Truncate(time.Millisecond)}
	if err := WriteService(context.Background(), s.t.FileIO(), rec); err != nil {
		close(s.loopDone)
		return err
	}
	// Location is reported once the service file names the server.
	s.mu.Lock()
	s.location = loc
	s.mu.Unlock()
	go s.loop()
	return s.gs.Serve(lis)
}

// Start listens on addr ("127.0.0.1:0" picks a free port) and serves in
// the background; it returns once the server accepts calls and its
// location is recorded (Location). Shutdown stops it and waits for it.
// Errors: those of net.Listen and Serve.
func (s *Server) Start(addr string) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", addr, err)
	}
	served := make(chan struct{})
	s.mu.Lock()
	s.served = served
	s.mu.Unlock()
	go func() {
		s.serveErr = s.Serve(lis)
		close(served)
	}()
	for s.Location() == "" {
		select {
		case <-served:
			// Start reports the error; Shutdown does not again.
			s.mu.Lock()
			s.served = nil
			s.mu.Unlock()
			return s.serveErr
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// Location returns the Flight location the server records
// ("grpc+tcp://host:port" or "grpc+tls://host:port"); empty until Serve
// has recorded it in the service file.
func (s *Server) Location() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.location
}

// held returns the bytes the context holds in memory.
func (s *Server) held() int64 {
	rc, _ := s.state()
	u := rc.Usage()
	return u.BuildingBytes + u.SealedBytes
}

// admit makes room for a DoPut batch: above MaxMemoryBytes it commits
// what the server holds; ErrMemoryFull wrapped when that leaves it above.
func (s *Server) admit(ctx context.Context) error {
	if s.held() < s.cfg.MaxMemoryBytes {
		return nil
	}
	if _, err := s.Commit(ctx); err != nil {
		return err
	}
	if h := s.held(); h >= s.cfg.MaxMemoryBytes {
		return fmt.Errorf("%w: %d bytes held after a commit, limit %d", ErrMemoryFull, h, s.cfg.MaxMemoryBytes)
	}
	return nil
}

// Metrics returns the real-time context's gauges (realtime.Context.Metrics:
// bytes and rows held in memory, building and sealed).
func (s *Server) Metrics() map[string]int64 {
	rc, _ := s.state()
	return rc.Metrics()
}

// loop commits every CommitInterval until stop closes.
func (s *Server) loop() {
	defer close(s.loopDone)
	if s.cfg.CommitInterval < 0 {
		<-s.stop
		return
	}
	tk := time.NewTicker(s.cfg.CommitInterval)
	defer tk.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tk.C:
			if _, err := s.Commit(context.Background()); err != nil {
				s.log.Error("serve: commit failed", "err", err)
			}
		}
	}
}

// maxCommitRetries bounds the consecutive failed attempts to publish one
// prepared commit before the server gives its rows up (rebuild).
const maxCommitRetries = 5

// Commit prepares and commits what the server holds now and returns the id
// of the last snapshot it created (0 when nothing was held; see
// realtime.Commit.CommitWithProgress).
//
// Failures keep acknowledged rows where the protocol allows it:
//   - a failed prepare (an object-store error while flushing) hands every
//     range back: the rows stay in memory, readable, and the next Commit
//     flushes them again (a flush writer gone stale under another
//     committer's compaction and expiration is restored at once, see
//     realtime.Write.PrepareCommitWithProgress);
//   - a failed commit of prepared rows (an object-store error, an unknown
//     outcome, lost races beyond the committer's retries) keeps the
//     prepared commit and its identifier: the next Commit publishes it
//     again first (a retry of a commit that landed is recognised, package
//     commit), up to maxCommitRetries consecutive failures;
//   - a commit refused for good (another writer committed progress of the
//     same partition-bucket: progress.ErrNotContiguous,
//     commit.ErrForeignProgress, commit.ErrPartialRetry), or failing
//     maxCommitRetries times, is terminal for the context (realtime.Commit
//     .CommitWithProgress): the server recreates it from the latest
//     snapshot, dropping the rows it held, under a new generation: every
//     DoPut stream open then, and every later one naming the old
//     generation (PutCommand, as Client does), ends with Aborted, so its
//     producer asks "progress" and replays.
//
// It returns the error of the failed step.
func (s *Server) Commit(ctx context.Context) (int64, error) {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.mu.Lock()
	if s.final {
		s.mu.Unlock()
		return 0, fmt.Errorf("%w: server", realtime.ErrClosed)
	}
	rc, w, cm, closed := s.rc, s.w, s.cm, s.closed
	s.mu.Unlock()
	if s.refreshID != 0 {
		s.refresh(ctx, rc, s.refreshID)
	}
	var id int64
	if s.pending != nil {
		var err error
		if id, err = cm.CommitWithProgress(ctx, s.pending, s.pendingIdent, nil); err != nil {
			return 0, s.failed(err, closed)
		}
		s.pending, s.tries = nil, 0
		s.refresh(ctx, rc, id)
	}
	s.ident++
	ident := s.ident
	prog, err := w.PrepareCommitWithProgress(ctx, ident)
	if err != nil {
		return id, err // the rows stay held; the next Commit flushes them again
	}
	if len(prog) == 0 {
		return id, nil
	}
	nid, err := cm.CommitWithProgress(ctx, prog, ident, nil)
	if err != nil {
		s.pending, s.pendingIdent = prog, ident
		return id, s.failed(err, closed)
	}
	s.tries = 0
	s.refresh(ctx, rc, nid)
	return nid, nil
}

// refresh tells the context that snapshot id landed, so its stores
// reclaim the committed rows; a failure is retried at the next Commit
// (reads stay exact meanwhile: scans take memory rows above the boundary
// of the snapshot they read).
func (s *Server) refresh(ctx context.Context, rc *realtime.Context, id int64) {
	if id == 0 {
		return
	}
	if err := rc.RefreshCommittedSnapshot(ctx, max(id, s.refreshID)); err != nil {
		s.log.Warn("serve: refresh after a commit failed; retried at the next commit", "snapshot", id, "err", err)
		s.refreshID = max(id, s.refreshID)
		return
	}
	s.refreshID = 0
}

// terminal reports whether a commit error leaves the prepared commit
// unpublishable.
func terminal(err error) bool {
	for _, e := range []error{progress.ErrNotContiguous, progress.ErrInvalidRange, commit.ErrForeignProgress,
		commit.ErrPartialRetry, commit.ErrRealtimeDisabled, realtime.ErrClosed} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// failed handles a failed publication of the pending commit: it is kept
// for the next Commit, or, terminal or retried too often, the context is
// rebuilt. It returns err, joined with a rebuild error.
func (s *Server) failed(err error, closed bool) error {
	s.tries++
	if !terminal(err) && s.tries < maxCommitRetries {
		s.log.Warn("serve: commit failed; the prepared commit is published again at the next commit", "attempt", s.tries, "err", err)
		return err
	}
	s.pending, s.tries, s.refreshID = nil, 0, 0
	if closed {
		return err
	}
	s.log.Error("serve: commit failed for good; the context is recreated from the latest snapshot and open DoPut streams are aborted, producers replay from its progress", "err", err)
	if rerr := s.rebuild(); rerr != nil {
		return errors.Join(err, rerr)
	}
	return err
}

// rebuild replaces the context after a terminal commit failure; the new
// context has a new generation (open DoPut streams end with Aborted).
func (s *Server) rebuild() error {
	if err := s.closeState(); err != nil {
		s.log.Warn("serve: closing the failed context", "err", err)
	}
	return s.open()
}

// Shutdown stops accepting calls, waits for running calls until ctx ends
// (then cancels them), stops the commit loop, commits what the server
// holds, closes the context and removes the service file if it still
// names this server. It returns the final commit's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	gs, serving, served := s.gs, s.serving, s.served
	s.mu.Unlock()
	if serving {
		stopped := make(chan struct{})
		go func() { gs.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-ctx.Done():
			gs.Stop()
			<-stopped
		}
		close(s.stop)
		<-s.loopDone
	}
	_, cerr := s.Commit(context.WithoutCancel(ctx))
	for try := 1; cerr != nil && !terminal(cerr) && try < maxCommitRetries; try++ {
		time.Sleep(time.Duration(try) * 100 * time.Millisecond)
		_, cerr = s.Commit(context.WithoutCancel(ctx))
	}
	s.mu.Lock()
	s.final = true
	s.mu.Unlock()
	err := errors.Join(cerr, s.closeState())
	if serving {
		err = errors.Join(err, DeleteService(context.WithoutCancel(ctx), s.t.FileIO(), s.location))
	}
	if served != nil {
		<-served
		err = errors.Join(err, s.serveErr)
	}
	return err
}
