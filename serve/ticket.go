package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrBadRequest reports a malformed ticket, descriptor or action body
// (Flight status InvalidArgument).
var ErrBadRequest = errors.New("serve: bad request")

// Ticket kinds.
const (
	// KindUnion reads committed files ∪ memory, as the real-time scan of the
	// server's context returns them (realtime.Scan).
	KindUnion = "union"
	// KindRealtime reads only the real-time portion: the snapshot the server
	// planned and, per partition-bucket, the memory rows above its progress
	// boundary in the transport schema (realtime.Portion).
	KindRealtime = "realtime"
)

// maxTicketBytes bounds a ticket or descriptor command.
const maxTicketBytes = 64 << 10

// Ticket is the JSON body of a DoGet ticket and of a GetFlightInfo or
// GetSchema descriptor command, e.g.
// {"kind":"union","columns":["id","v"],"where":"id > 3","snapshot":0}.
// Unknown fields are refused.
type Ticket struct {
	// Kind is KindUnion (the default when empty) or KindRealtime.
	Kind string `json:"kind,omitempty"`
	// Columns project a union read (every column when empty).
	Columns []string `json:"columns,omitempty"`
	// Where filters a union read (predicate.Parse syntax, as paimon cat --where).
	Where string `json:"where,omitempty"`
	// Snapshot reads a union at that snapshot (0: the latest); it may not be
	// older than the server's committed progress.
	Snapshot int64 `json:"snapshot,omitempty"`
}

// Encode returns the ticket's JSON bytes.
func (t Ticket) Encode() []byte {
	b, _ := json.Marshal(t)
	return b
}

// DecodeTicket parses and checks a ticket. An empty body is a union of
// every column. Errors wrap ErrBadRequest.
func DecodeTicket(b []byte) (Ticket, error) {
	var t Ticket
	if len(b) > maxTicketBytes {
		return t, fmt.Errorf("%w: ticket of %d bytes exceeds %d", ErrBadRequest, len(b), maxTicketBytes)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return Ticket{Kind: KindUnion}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, fmt.Errorf("%w: ticket is not a JSON ticket object: %v", ErrBadRequest, err)
	}
	if dec.More() {
		return t, fmt.Errorf("%w: trailing bytes after the ticket", ErrBadRequest)
	}
	switch t.Kind {
	case "":
		t.Kind = KindUnion
	case KindUnion:
	case KindRealtime:
		if len(t.Columns) > 0 || t.Where != "" || t.Snapshot != 0 {
			return t, fmt.Errorf("%w: a realtime ticket takes no columns, where or snapshot", ErrBadRequest)
		}
	default:
		return t, fmt.Errorf("%w: unknown ticket kind %q (want %q or %q)", ErrBadRequest, t.Kind, KindUnion, KindRealtime)
	}
	if t.Snapshot < 0 {
		return t, fmt.Errorf("%w: negative snapshot %d", ErrBadRequest, t.Snapshot)
	}
	return t, nil
}

// PortionMeta is the app metadata of each batch of a realtime DoGet
// stream (JSON). The stream's first batch is empty and carries only
// SnapshotID; each further batch holds rows of one partition-bucket's
// portion (realtime.Portion), in the transport schema.
type PortionMeta struct {
	SnapshotID int64 `json:"snapshot"`
	// Partition is the partition spec (name → value string, as in progress
	// files); PartitionRow the serialized BinaryRow; Bucket the bucket.
	Partition    map[string]string `json:"partition,omitempty"`
	PartitionRow []byte            `json:"partition_row,omitempty"`
	Bucket       int32             `json:"bucket"`
	CommittedEnd int64             `json:"committed_end"`
	MemoryEnd    int64             `json:"memory_end"`
	// Rows is false for the header batch.
	Rows bool `json:"rows"`
}

// PutAck is the app metadata of each PutResult of DoPut: the rows of the
// acknowledged batch (queryable once acknowledged), the stream's total and
// the server's generation.
type PutAck struct {
	Rows       int64  `json:"rows"`
	Total      int64  `json:"total"`
	Generation string `json:"generation"`
}

// PutCommand is the JSON command of a DoPut stream's flight descriptor
// (any other command, such as "put", asks for no check). Generation, when
// set, is the server generation the producer last saw (PutAck,
// ProgressResult): a server whose generation differs has dropped rows it
// had acknowledged since (a commit failed for good, or it is another
// process) and refuses the stream with Aborted, so the producer asks
// "progress" and replays instead of going on past a gap.
type PutCommand struct {
	Generation string `json:"generation,omitempty"`
}

// CommitResult is the body of the "commit" action's result: the snapshot
// created, 0 when nothing was held.
type CommitResult struct {
	SnapshotID int64 `json:"snapshot"`
}

// ProgressEntry is one partition-bucket of the "progress" action's result.
type ProgressEntry struct {
	Partition map[string]string `json:"partition"`
	Bucket    int32             `json:"bucket"`
	End       int64             `json:"end"`
}

// ProgressResult is the body of the "progress" action's result: the
// committed progress of the latest snapshot, where a producer replays from
// after a server restart.
type ProgressResult struct {
	SnapshotID int64           `json:"snapshot"`
	Offsets    []ProgressEntry `json:"offsets"`
	// Generation identifies the rows the server holds: it changes when
	// they are dropped (a new process, or a commit failed for good); see
	// PutCommand.
	Generation string `json:"generation"`
}
