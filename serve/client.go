package serve

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/paimon-go/paimon/progress"
	"github.com/paimon-go/paimon/realtime"
)

// ErrLocation reports a Flight location the client cannot dial.
var ErrLocation = errors.New("serve: bad flight location")

// Client talks to a Server (or any server speaking its protocol).
type Client struct {
	fc    flight.Client
	token string

	mu  sync.Mutex
	gen string // the server generation last seen (PutAck, Progress)
}

// putDescriptor names the generation the client last saw (PutCommand).
func (c *Client) putDescriptor() *flight.FlightDescriptor {
	c.mu.Lock()
	cmd, _ := json.Marshal(PutCommand{Generation: c.gen})
	c.mu.Unlock()
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd}
}

// saw records the generation of an acknowledgement when none was known.
func (c *Client) saw(gen string) {
	c.mu.Lock()
	if c.gen == "" {
		c.gen = gen
	}
	c.mu.Unlock()
}

// DialOption configures Dial.
type DialOption func(*dialConfig)

type dialConfig struct {
	tls      *tls.Config
	maxBytes int
}

// WithTLS sets the TLS configuration of grpc+tls locations (the system
// roots and the location's host when nil).
func WithTLS(c *tls.Config) DialOption { return func(d *dialConfig) { d.tls = c } }

// WithMaxMessageBytes bounds one received message (DefaultMaxMessageBytes
// by default).
func WithMaxMessageBytes(n int) DialOption { return func(d *dialConfig) { d.maxBytes = n } }

// Dial connects to location ("grpc+tcp://host:port", "grpc://host:port"
// or "grpc+tls://host:port") with the bearer token. The connection is
// made lazily; the first call reports an unreachable server. Errors:
// ErrLocation.
func Dial(location, token string, opts ...DialOption) (*Client, error) {
	cfg := dialConfig{maxBytes: DefaultMaxMessageBytes}
	for _, o := range opts {
		o(&cfg)
	}
	scheme, addr, ok := strings.Cut(location, "://")
	if !ok || addr == "" {
		return nil, fmt.Errorf("%w: %q (want grpc+tcp://host:port or grpc+tls://host:port)", ErrLocation, location)
	}
	var creds grpc.DialOption
	switch scheme {
	case "grpc", "grpc+tcp":
		creds = grpc.WithTransportCredentials(insecure.NewCredentials())
	case "grpc+tls":
		c := cfg.tls
		if c == nil {
			c = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		creds = grpc.WithTransportCredentials(credentials.NewTLS(c))
	default:
		return nil, fmt.Errorf("%w: scheme %q of %q", ErrLocation, scheme, location)
	}
	fc, err := flight.NewClientWithMiddleware(addr, nil, nil, creds, grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.maxBytes)))
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrLocation, location, err)
	}
	return &Client{fc: fc, token: token}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.fc.Close() }

func (c *Client) auth(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, authHeader, "Bearer "+c.token)
}

// Put sends the batches in one DoPut stream and waits for every
// acknowledgement; the rows are queryable when it returns. It returns the
// rows acknowledged. Errors: the server's status (InvalidArgument for a
// rejected batch, after which the batches before it stay ingested;
// Aborted when the server dropped rows this client had put and that were
// not committed: call Progress and replay from its offsets).
//
// The client names the server generation it last saw (PutCommand, from
// its first acknowledgement or the last Progress), so a put never goes on
// silently past rows the server dropped.
func (c *Client) Put(ctx context.Context, recs ...arrow.RecordBatch) (int64, error) {
	if len(recs) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithCancel(c.auth(ctx))
	defer cancel()
	st, err := c.fc.DoPut(ctx)
	if err != nil {
		return 0, err
	}
	w := flight.NewRecordWriter(st, ipc.WithSchema(recs[0].Schema()))
	w.SetFlightDescriptor(c.putDescriptor())
	acks := make(chan error, 1)
	var acked int64
	go func() {
		for {
			r, err := st.Recv()
			if errors.Is(err, io.EOF) {
				acks <- nil
				return
			}
			if err != nil {
				acks <- err
				return
			}
			var a PutAck
			if err := json.Unmarshal(r.GetAppMetadata(), &a); err != nil {
				acks <- fmt.Errorf("serve: bad DoPut acknowledgement: %w", err)
				return
			}
			c.saw(a.Generation)
			acked = a.Total
		}
	}()
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			break // the server ended the stream: its status arrives on Recv
		}
	}
	_ = w.Close()
	_ = st.CloseSend()
	err = <-acks
	return acked, err
}

// PutStream is one open DoPut stream whose batches are written one at a
// time, each acknowledged before Write returns (Client.OpenPut).
type PutStream struct {
	c      *Client
	st     flight.FlightService_DoPutClient
	w      *flight.Writer
	cancel context.CancelFunc
	total  int64
}

// OpenPut opens a DoPut stream for batches of schema sc.
func (c *Client) OpenPut(ctx context.Context, sc *arrow.Schema) (*PutStream, error) {
	ctx, cancel := context.WithCancel(c.auth(ctx))
	st, err := c.fc.DoPut(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	w := flight.NewRecordWriter(st, ipc.WithSchema(sc))
	w.SetFlightDescriptor(c.putDescriptor())
	return &PutStream{c: c, st: st, w: w, cancel: cancel}, nil
}

// Write sends rec and waits for its acknowledgement: its rows are
// queryable when Write returns. It returns the stream's acknowledged total.
// Errors: the server's status (the stream is then over).
func (p *PutStream) Write(rec arrow.RecordBatch) (int64, error) {
	if err := p.w.Write(rec); err != nil {
		if _, rerr := p.st.Recv(); rerr != nil && !errors.Is(rerr, io.EOF) {
			return p.total, rerr
		}
		return p.total, err
	}
	r, err := p.st.Recv()
	if err != nil {
		return p.total, err
	}
	var a PutAck
	if err := json.Unmarshal(r.GetAppMetadata(), &a); err != nil {
		return p.total, fmt.Errorf("serve: bad DoPut acknowledgement: %w", err)
	}
	p.c.saw(a.Generation)
	p.total = a.Total
	return p.total, nil
}

// Close ends the stream.
func (p *PutStream) Close() error {
	defer p.cancel()
	_ = p.w.Close()
	if err := p.st.CloseSend(); err != nil {
		return err
	}
	for {
		if _, err := p.st.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// Lookup returns the current rows of the primary keys in keys (the
// trimmed primary-key columns), merged from the server's memory and files.
// The caller releases the batch.
func (c *Client) Lookup(ctx context.Context, keys arrow.RecordBatch) (arrow.RecordBatch, error) {
	var body bytes.Buffer
	w := ipc.NewWriter(&body, ipc.WithSchema(keys.Schema()))
	if err := w.Write(keys); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	res, err := c.action(ctx, ActionLookup, body.Bytes())
	if err != nil {
		return nil, err
	}
	rd, err := ipcReader(res)
	if err != nil {
		return nil, fmt.Errorf("serve: lookup result: %w", err)
	}
	defer rd.Release()
	var recs []arrow.RecordBatch
	for rd.Next() {
		r := rd.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if err := rd.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("serve: lookup result: %w", err)
	}
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	tbl := array.NewTableFromRecords(rd.Schema(), recs)
	defer tbl.Release()
	return concatTable(tbl)
}

// concatTable turns a table into one batch.
func concatTable(tbl arrow.Table) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, tbl.NumCols())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i := range cols {
		ch := tbl.Column(i).Data().Chunks()
		if len(ch) == 0 {
			b := array.NewBuilder(memory.DefaultAllocator, tbl.Schema().Field(i).Type)
			cols[i] = b.NewArray()
			b.Release()
			continue
		}
		a, err := array.Concatenate(ch, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		cols[i] = a
	}
	return array.NewRecordBatch(tbl.Schema(), cols, tbl.NumRows()), nil
}

// Commit asks the server to commit what it holds now and returns the id of
// the last snapshot it created (0 when it held nothing).
func (c *Client) Commit(ctx context.Context) (int64, error) {
	b, err := c.action(ctx, ActionCommit, nil)
	if err != nil {
		return 0, err
	}
	var r CommitResult
	if err := json.Unmarshal(b, &r); err != nil {
		return 0, fmt.Errorf("serve: commit result: %w", err)
	}
	return r.SnapshotID, nil
}

// Progress returns the latest snapshot's committed progress, where a
// producer replays from after a server restart or an Aborted put; the
// client's later puts name the generation it returns.
func (c *Client) Progress(ctx context.Context) (ProgressResult, error) {
	b, err := c.action(ctx, ActionProgress, nil)
	if err != nil {
		return ProgressResult{}, err
	}
	var r ProgressResult
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("serve: progress result: %w", err)
	}
	c.mu.Lock()
	c.gen = r.Generation
	c.mu.Unlock()
	return r, nil
}

// action runs one DoAction and returns its single result body.
func (c *Client) action(ctx context.Context, typ string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithCancel(c.auth(ctx))
	defer cancel()
	st, err := c.fc.DoAction(ctx, &flight.Action{Type: typ, Body: body})
	if err != nil {
		return nil, err
	}
	r, err := st.Recv()
	if err != nil {
		return nil, err
	}
	return r.GetBody(), nil
}

// Read streams a union ticket's rows (Ticket; KindUnion). The consumer
// releases each batch; on error the iterator yields (nil, err) once.
func (c *Client) Read(ctx context.Context, t Ticket) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		ctx, cancel := context.WithCancel(c.auth(ctx))
		defer cancel()
		st, err := c.fc.DoGet(ctx, &flight.Ticket{Ticket: t.Encode()})
		if err != nil {
			yield(nil, err)
			return
		}
		rd, err := flight.NewRecordReader(st)
		if err != nil {
			yield(nil, err)
			return
		}
		defer rd.Release()
		for rd.Next() {
			r := rd.RecordBatch()
			r.Retain()
			if !yield(r, nil) {
				return
			}
		}
		if err := rd.Err(); err != nil && !errors.Is(err, io.EOF) {
			yield(nil, err)
		}
	}
}

// Portions fetches the real-time portion: the snapshot the server planned
// and each partition-bucket's memory rows above it (realtime.Portion,
// transport schema), ready for realtime.ReadUnion. The caller owns the
// portions' rows.
func (c *Client) Portions(ctx context.Context) (int64, []realtime.Portion, error) {
	ctx, cancel := context.WithCancel(c.auth(ctx))
	defer cancel()
	st, err := c.fc.DoGet(ctx, &flight.Ticket{Ticket: Ticket{Kind: KindRealtime}.Encode()})
	if err != nil {
		return 0, nil, err
	}
	rd, err := flight.NewRecordReader(st)
	if err != nil {
		return 0, nil, err
	}
	defer rd.Release()
	var (
		snap  int64 = -1
		out   []realtime.Portion
		index = map[string]int{}
	)
	fail := func(err error) (int64, []realtime.Portion, error) {
		for _, p := range out {
			for _, r := range p.Rows {
				r.Release()
			}
		}
		return 0, nil, err
	}
	for rd.Next() {
		var pm PortionMeta
		if err := json.Unmarshal(rd.LatestAppMetadata(), &pm); err != nil {
			return fail(fmt.Errorf("serve: realtime stream metadata: %w", err))
		}
		if snap == -1 {
			snap = pm.SnapshotID
		} else if pm.SnapshotID != snap {
			return fail(fmt.Errorf("serve: realtime stream mixes snapshots %d and %d", snap, pm.SnapshotID))
		}
		if !pm.Rows {
			continue
		}
		pb := progress.PartitionBucket{Partition: pm.Partition, Bucket: pm.Bucket}
		if pb.Partition == nil {
			pb.Partition = map[string]string{}
		}
		key := pb.Key()
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, realtime.Portion{PartitionBucket: pb, Partition: pm.PartitionRow, SnapshotID: pm.SnapshotID,
				CommittedEnd: pm.CommittedEnd, MemoryEnd: pm.MemoryEnd})
		}
		r := rd.RecordBatch()
		r.Retain()
		out[i].Rows = append(out[i].Rows, r)
	}
	if err := rd.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fail(err)
	}
	if snap == -1 {
		return fail(errors.New("serve: realtime stream without its header"))
	}
	return snap, out, nil
}
