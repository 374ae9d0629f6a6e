package catalog

import (
	"strings"

	"github.com/paimon-go/paimon/schema"
)

// wrappedError is an error with its own one-line text that still unwraps to
// the errors it was made from, so errors.Is sees every sentinel of their
// chains while the text names each sentinel once.
type wrappedError struct {
	msg  string
	errs []error
}

func (e *wrappedError) Error() string   { return e.msg }
func (e *wrappedError) Unwrap() []error { return e.errs }

// trimSchemaID removes a leading "schema <id>: ", the element package
// schema puts after its sentinel texts.
func trimSchemaID(msg string) string {
	rest, ok := strings.CutPrefix(msg, "schema ")
	if !ok {
		return msg
	}
	rest = strings.TrimPrefix(rest, "-")
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || !strings.HasPrefix(rest[i:], ": ") {
		return msg
	}
	return rest[i+2:]
}

// reason returns the text of err without the leading sentinel texts that
// the catalog's own wrapping would repeat: "catalog: " (and with it
// "catalog: invalid table schema: "), package schema's "schema: invalid
// table schema: ", its "schema <id>: " element and its "schema: " package
// prefix (so "schema: invalid table option: k=v" reads "invalid table
// option: k=v").
func reason(err error) string {
	msg := err.Error()
	for {
		next := strings.TrimPrefix(msg, ErrInvalidSchema.Error()+": ")
		next = strings.TrimPrefix(next, schema.ErrInvalidSchema.Error()+": ")
		next = trimSchemaID(next)
		next = strings.TrimPrefix(next, "schema: ")
		next = strings.TrimPrefix(next, "catalog: ")
		if next == msg {
			return msg
		}
		msg = next
	}
}

// invalidSchema returns ErrInvalidSchema wrapping cause (a rejection by
// package schema or by the catalog's own checks): its text is
// "catalog: invalid table schema: [where: ]<reason of cause>", and
// errors.Is matches ErrInvalidSchema and everything cause wraps
// (schema.ErrInvalidSchema, schema.ErrInvalidOption).
func invalidSchema(where string, cause error) error {
	msg := ErrInvalidSchema.Error() + ": "
	if where != "" {
		msg += where + ": "
	}
	return &wrappedError{msg: msg + reason(cause), errs: []error{ErrInvalidSchema, cause}}
}

// wrapOp returns err prefixed by "catalog: <op>: " without repeating the
// "catalog: " prefix of err's own text (a catalog sentinel); errors.Is and
// errors.As see err.
func wrapOp(op string, err error) error {
	return &wrappedError{msg: "catalog: " + op + ": " + strings.TrimPrefix(err.Error(), "catalog: "), errs: []error{err}}
}
