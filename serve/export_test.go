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

// Info returns the field names of GetFlightInfo's and GetSchema's schemas
// for a descriptor command, and the endpoint ticket of GetFlightInfo.
func (r Raw) Info(ctx context.Context, cmd []byte) (info, schema []string, ticket []byte, err error) {
	d := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: cmd}
	fi, err := r.c.fc.GetFlightInfo(r.c.auth(ctx), d)
	if err != nil {
		return nil, nil, nil, err
	}
	sc, err := flight.DeserializeSchema(fi.GetSchema(), nil)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, f := range sc.Fields() {
		info = append(info, f.Name)
	}
	if len(fi.GetEndpoint()) == 1 {
		ticket = fi.GetEndpoint()[0].GetTicket().GetTicket()
	}
	sr, err := r.c.fc.GetSchema(r.c.auth(ctx), d)
	if err != nil {
		return nil, nil, nil, err
	}
	sc, err = flight.DeserializeSchema(sr.GetSchema(), nil)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, f := range sc.Fields() {
		schema = append(schema, f.Name)
	}
	return info, schema, ticket, nil
}

// Actions lists the action types.
func (r Raw) Actions(ctx context.Context) ([]string, error) {
	st, err := r.c.fc.ListActions(r.c.auth(ctx), &flight.Empty{})
	if err != nil {
		return nil, err
	}
	var out []string
	for {
		a, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, a.GetType())
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
