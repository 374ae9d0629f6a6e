package serve

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// Raw sends hand-made requests, for tests of malformed input.
type Raw struct{ c *Client }

// RawClient wraps c.
func RawClient(c *Client) Raw { return Raw{c} }

// Get runs DoGet with the ticket bytes and drains the stream.
func (r Raw) Get(ctx context.Context, ticket []byte) error {
	st, err := r.c.fc.DoGet(r.c.auth(ctx), &flight.Ticket{Ticket: ticket})
	if err != nil {
		return err
	}
	for {
		if _, err := st.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// GetFirst runs DoGet and yields its raw messages until the consumer stops.
func (r Raw) GetFirst(ctx context.Context, ticket []byte) func(func(*flight.FlightData, error) bool) {
	return func(yield func(*flight.FlightData, error) bool) {
		st, err := r.c.fc.DoGet(r.c.auth(ctx), &flight.Ticket{Ticket: ticket})
		if err != nil {
			yield(nil, err)
			return
		}
		for {
			m, err := st.Recv()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(m, err) || err != nil {
				return
			}
		}
	}
}

// Action runs DoAction and drains the results.
func (r Raw) Action(ctx context.Context, typ string, body []byte) error {
	st, err := r.c.fc.DoAction(r.c.auth(ctx), &flight.Action{Type: typ, Body: body})
	if err != nil {
		return err
	}
	for {
		if _, err := st.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// PutBytes sends one FlightData whose header is body.
func (r Raw) PutBytes(ctx context.Context, body []byte) error {
	st, err := r.c.fc.DoPut(r.c.auth(ctx))
	if err != nil {
		return err
	}
	if err := st.Send(&flight.FlightData{DataHeader: body}); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	_ = st.CloseSend()
	for {
		if _, err := st.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
