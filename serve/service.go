package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/reader"
	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
	"github.com/paimon-go/paimon/types"
	"github.com/paimon-go/paimon/writer"
)

// Action types (DoAction).
const (
	// ActionLookup: body an Arrow IPC stream of key batches (the trimmed
	// primary-key columns); result one body, an Arrow IPC stream of the
	// found rows (paimon.Table.Lookup over memory ∪ files).
	ActionLookup = "lookup"
	// ActionCommit: commit what the server holds now; result CommitResult.
	ActionCommit = "commit"
	// ActionProgress: the latest snapshot's committed progress;
	// result ProgressResult.
	ActionProgress = "progress"
)

// service implements the Flight RPCs of a Server.
type service struct {
	flight.BaseFlightServer
	s *Server
}

// statusOf maps an error to a Flight (gRPC) status with its text.
func statusOf(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	code := codes.Internal
	switch {
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, ErrBadRequest), errors.Is(err, reader.ErrInvalidScan),
		errors.Is(err, predicate.ErrSyntax), errors.Is(err, predicate.ErrUnknownField),
		errors.Is(err, writer.ErrSchemaMismatch), errors.Is(err, writer.ErrNullViolation),
		errors.Is(err, writer.ErrRowKind), errors.Is(err, realtime.ErrSchemaMismatch),
		errors.Is(err, realtime.ErrOffsetOrder), errors.Is(err, schema.ErrInvalidOption):
		code = codes.InvalidArgument
	case errors.Is(err, realtime.ErrSnapshotTooOld), errors.Is(err, reader.ErrNoSnapshot),
		errors.Is(err, reader.ErrSnapshotExpired), errors.Is(err, realtime.ErrRecreateContext):
		code = codes.FailedPrecondition
	case errors.Is(err, realtime.ErrClosed):
		code = codes.Unavailable
	case errors.Is(err, ErrMemoryFull):
		code = codes.ResourceExhausted
	}
	return status.Error(code, err.Error())
}

// scanOptions turns a union ticket into reader options.
func scanOptions(t Ticket) []reader.Option {
	var opts []reader.Option
	if len(t.Columns) > 0 {
		opts = append(opts, reader.WithColumns(t.Columns...))
	}
	if t.Where != "" {
		opts = append(opts, reader.WithWhere(t.Where))
	}
	if t.Snapshot > 0 {
		opts = append(opts, reader.WithSnapshot(t.Snapshot))
	}
	return opts
}

// schemaOf returns the Arrow schema a ticket's stream has.
func (sv *service) schemaOf(ctx context.Context, t Ticket) (*arrow.Schema, error) {
	rc, _ := sv.s.state()
	if t.Kind == KindRealtime {
		return rc.TransportSchema(), nil
	}
	p, err := rc.NewScan(scanOptions(t)...).Plan(ctx)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	return p.ArrowSchema(), nil
}

// describe decodes a descriptor's ticket and returns its stream's schema.
func (sv *service) describe(ctx context.Context, d *flight.FlightDescriptor) (Ticket, []byte, error) {
	t, err := DecodeTicket(d.GetCmd())
	if err != nil {
		return t, nil, statusOf(err)
	}
	sc, err := sv.schemaOf(ctx, t)
	if err != nil {
		return t, nil, statusOf(err)
	}
	return t, flight.SerializeSchema(sc, memory.DefaultAllocator), nil
}

// GetSchema returns the schema of the stream of the ticket in the
// descriptor's command (an empty command: the table's union stream).
func (sv *service) GetSchema(ctx context.Context, d *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	_, sc, err := sv.describe(ctx, d)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: sc}, nil
}

// GetFlightInfo describes the stream of the ticket in the descriptor's
// command: its schema and one endpoint whose ticket is the command.
func (sv *service) GetFlightInfo(ctx context.Context, d *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	t, sc, err := sv.describe(ctx, d)
	if err != nil {
		return nil, err
	}
	return &flight.FlightInfo{
		Schema:           sc,
		FlightDescriptor: d,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: t.Encode()}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}, nil
}

// DoGet streams a union read or the real-time portion (Ticket).
func (sv *service) DoGet(tk *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	t, err := DecodeTicket(tk.GetTicket())
	if err != nil {
		return statusOf(err)
	}
	ctx := stream.Context()
	if t.Kind == KindRealtime {
		return statusOf(sv.portions(ctx, stream))
	}
	rc, _ := sv.s.state()
	p, err := rc.NewScan(scanOptions(t)...).Plan(ctx)
	if err != nil {
		return statusOf(err)
	}
	defer p.Release()
	w := flight.NewRecordWriter(stream, ipc.WithSchema(p.ArrowSchema()))
	for rec, err := range p.Records(ctx) {
		if err != nil {
			return statusOf(err)
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return statusOf(err)
		}
	}
	return statusOf(w.Close())
}

// portions streams the real-time portion: a header batch (no rows) with
// the planned snapshot, then each partition-bucket's memory rows with
// their PortionMeta.
func (sv *service) portions(ctx context.Context, stream flight.FlightService_DoGetServer) error {
	rc, _ := sv.s.state()
	p, err := rc.NewScan().Plan(ctx)
	if err != nil {
		return err
	}
	defer p.Release()
	sc := rc.TransportSchema()
	w := flight.NewRecordWriter(stream, ipc.WithSchema(sc))
	defer w.Close()
	head := array.NewRecordBatch(sc, emptyColumns(sc), 0)
	meta, _ := json.Marshal(PortionMeta{SnapshotID: p.SnapshotID})
	err = w.WriteWithAppMetadata(head, meta)
	head.Release()
	if err != nil {
		return err
	}
	for _, sp := range p.Splits {
		if !sp.Realtime() {
			continue
		}
		pm := PortionMeta{SnapshotID: p.SnapshotID, Partition: sp.PartitionBucket.Partition, PartitionRow: sp.Partition(),
			Bucket: sp.PartitionBucket.Bucket, CommittedEnd: sp.CommittedEnd, MemoryEnd: sp.MemoryEnd, Rows: true}
		meta, _ := json.Marshal(pm)
		for rec, err := range p.ReadMemory(ctx, sp) {
			if err != nil {
				return err
			}
			err = w.WriteWithAppMetadata(rec, meta)
			rec.Release()
			if err != nil {
				return err
			}
		}
	}
	return w.Close()
}

// emptyColumns returns zero-length arrays of sc's fields.
func emptyColumns(sc *arrow.Schema) []arrow.Array {
	cols := make([]arrow.Array, sc.NumFields())
	for i, f := range sc.Fields() {
		b := array.NewBuilder(memory.DefaultAllocator, f.Type)
		cols[i] = b.NewArray()
		b.Release()
	}
	return cols
}

// DoPut ingests the stream's batches (the table's columns, optionally a
// leading _REALTIME_OFFSET column, realtime.Write.Write) and acknowledges
// each with a PutResult (PutAck) once its rows are queryable. A rejected
// batch ends the stream with InvalidArgument; batches acknowledged before
// it stay. A stream open when the server dropped the rows it held (a
// commit failed for good, Server.Commit) ends with Aborted: its producer
// replays from the "progress" action's offsets.
func (sv *service) DoPut(stream flight.FlightService_DoPutServer) error {
	rd, err := flight.NewRecordReader(stream)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return status.Error(codes.InvalidArgument, fmt.Sprintf("serve: DoPut stream: %v", err))
	}
	defer rd.Release()
	ctx := stream.Context()
	var total int64
	_, gen := sv.s.writeState()
	if d := rd.LatestFlightDescriptor(); d != nil && bytes.HasPrefix(d.GetCmd(), []byte("{")) {
		var pc PutCommand
		if err := json.Unmarshal(d.GetCmd(), &pc); err != nil {
			return statusOf(fmt.Errorf("%w: DoPut command: %v", ErrBadRequest, err))
		}
		if pc.Generation != "" && pc.Generation != gen {
			return status.Error(codes.Aborted, fmt.Sprintf("serve: generation %s is gone (now %s): the rows acknowledged under it and not committed were dropped (a restart, or a commit failed for good); ask the progress action and replay from its offsets", pc.Generation, gen))
		}
	}
	for rd.Next() {
		rec := rd.RecordBatch()
		if err := sv.s.admit(ctx); err != nil {
			return statusOf(err)
		}
		w, now := sv.s.writeState()
		if now != gen {
			return status.Error(codes.Aborted, "serve: the server dropped rows it held, this stream's included, after a commit failed for good (see its log); ask the progress action and replay from its offsets")
		}
		if err := w.Write(ctx, rec); err != nil {
			return statusOf(err)
		}
		total += rec.NumRows()
		meta, _ := json.Marshal(PutAck{Rows: rec.NumRows(), Total: total, Generation: gen})
		if err := stream.Send(&flight.PutResult{AppMetadata: meta}); err != nil {
			return err
		}
	}
	if err := rd.Err(); err != nil && !errors.Is(err, io.EOF) {
		return status.Error(codes.InvalidArgument, fmt.Sprintf("serve: DoPut stream: %v", err))
	}
	return nil
}

// ListActions lists the actions of DoAction.
func (sv *service) ListActions(_ *flight.Empty, stream flight.FlightService_ListActionsServer) error {
	for _, a := range []*flight.ActionType{
		{Type: ActionLookup, Description: "body: Arrow IPC stream of primary-key batches; result: Arrow IPC stream of the current rows (memory and files merged)"},
		{Type: ActionCommit, Description: "commit the rows held now; result: {\"snapshot\": id}"},
		{Type: ActionProgress, Description: "committed progress of the latest snapshot; result: {\"snapshot\": id, \"offsets\": [...]}"},
	} {
		if err := stream.Send(a); err != nil {
			return err
		}
	}
	return nil
}

// DoAction runs a lookup, a commit or a progress query.
func (sv *service) DoAction(a *flight.Action, stream flight.FlightService_DoActionServer) error {
	ctx := stream.Context()
	var body []byte
	switch a.GetType() {
	case ActionLookup:
		b, err := sv.lookup(ctx, a.GetBody())
		if err != nil {
			return statusOf(err)
		}
		body = b
	case ActionCommit:
		if len(a.GetBody()) > 0 {
			return statusOf(fmt.Errorf("%w: the commit action takes no body", ErrBadRequest))
		}
		id, err := sv.s.Commit(ctx)
		if err != nil {
			return statusOf(err)
		}
		body, _ = json.Marshal(CommitResult{SnapshotID: id})
	case ActionProgress:
		r, err := sv.progress(ctx)
		if err != nil {
			return statusOf(err)
		}
		body, _ = json.Marshal(r)
	default:
		return statusOf(fmt.Errorf("%w: unknown action %q (want %s, %s or %s)", ErrBadRequest, a.GetType(), ActionLookup, ActionCommit, ActionProgress))
	}
	return stream.Send(&flight.Result{Body: body})
}

// ipcReader reads an Arrow IPC stream held in body. A message cannot claim
// more bytes than the whole body holds: the limits refuse a garbage length
// prefix before it is allocated (ipc.NewReader of arrow-go v18.8.0 ignores
// its size limits and would allocate up to 2 GiB per malformed request, so
// the message reader is built with them).
func ipcReader(body []byte) (*ipc.Reader, error) {
	n := int64(len(body))
	lim := []ipc.Option{ipc.WithMetadataSizeLimit(n), ipc.WithBodySizeLimit(n)}
	return ipc.NewReaderFromMessageReader(ipc.NewMessageReader(bytes.NewReader(body), lim...), lim...)
}

// lookup decodes key batches from an IPC stream, looks each up and
// encodes the rows as one IPC stream.
func (sv *service) lookup(ctx context.Context, body []byte) ([]byte, error) {
	rd, err := ipcReader(body)
	if err != nil {
		return nil, fmt.Errorf("%w: lookup body is not an Arrow IPC stream: %v", ErrBadRequest, err)
	}
	defer rd.Release()
	rc, _ := sv.s.state()
	var buf bytes.Buffer
	var w *ipc.Writer
	for rd.Next() {
		res, err := rc.Lookup(ctx, rd.RecordBatch())
		if err != nil {
			return nil, err
		}
		if w == nil {
			w = ipc.NewWriter(&buf, ipc.WithSchema(res.Schema()))
		}
		err = w.Write(res)
		res.Release()
		if err != nil {
			return nil, err
		}
	}
	if err := rd.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: lookup body: %v", ErrBadRequest, err)
	}
	if w == nil {
		// No key batch: an empty stream of the table's columns.
		w = ipc.NewWriter(&buf, ipc.WithSchema(types.SchemaToArrow(rc.Schema().Fields)))
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// progress reads the latest snapshot's committed progress.
func (sv *service) progress(ctx context.Context) (ProgressResult, error) {
	// The generation is taken before the progress: rows dropped after it
	// are refused to producers naming it.
	_, gen := sv.s.writeState()
	r := ProgressResult{Offsets: []ProgressEntry{}, Generation: gen}
	fio := sv.s.t.FileIO()
	id, err := snapshot.NewManager(fio).LatestID(ctx)
	if errors.Is(err, snapshot.ErrNotFound) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	off, err := realtime.ReadCommittedOffsets(ctx, fio, id)
	if err != nil {
		return r, err
	}
	r.SnapshotID = id
	for _, e := range off.Entries() {
		r.Offsets = append(r.Offsets, ProgressEntry{Partition: e.PartitionBucket.Partition, Bucket: e.PartitionBucket.Bucket, End: e.End})
	}
	return r, nil
}
