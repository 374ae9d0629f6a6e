package gcs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"google.golang.org/api/googleapi"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/fileio/internal/driver"
)

// TestResponse: fileio reads a Google API error's status through the
// driver, wrapped or not; other errors are not the driver's.
func TestResponse(t *testing.T) {
	for _, err := range []error{&googleapi.Error{Code: http.StatusForbidden}, fmt.Errorf("get: %w", &googleapi.Error{Code: http.StatusForbidden})} {
		if r, ok := driver.ResponseOf(err); !ok || r != (driver.Response{Status: http.StatusForbidden}) {
			t.Errorf("ResponseOf(%v) = %+v, %v; want status 403", err, r, ok)
		}
	}
	if r, ok := response(errors.New("reset")); ok {
		t.Errorf("response(plain) = %+v, want none", r)
	}
}

// TestOpenRegistered: with the package linked, fileio.Open serves gs://
// (an emulator address skips the credentials check; nothing is requested).
func TestOpenRegistered(t *testing.T) {
	t.Setenv("STORAGE_EMULATOR_HOST", "127.0.0.1:1")
	f, err := fileio.Open(context.Background(), "gs://bucket/wh")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.URL(); got != "gs://bucket/wh" {
		t.Errorf("URL() = %q, want gs://bucket/wh", got)
	}
}

// TestOpenBadQuery: a query gocloud's opener refuses is ErrInvalidURL, as
// for the other schemes.
func TestOpenBadQuery(t *testing.T) {
	t.Setenv("STORAGE_EMULATOR_HOST", "127.0.0.1:1")
	_, err := fileio.Open(context.Background(), "gs://bkt/wh?bogus=1")
	want := `fileio: open "gs://bkt/wh?bogus=1": invalid file URL: open bucket gs://bkt?bogus=1: invalid query parameter "bogus"`
	if !errors.Is(err, fileio.ErrInvalidURL) || err == nil || err.Error() != want {
		t.Errorf("Open: %v\nwant %s", err, want)
	}
}
