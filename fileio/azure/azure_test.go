package azure

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/paimon-go/paimon/fileio/internal/driver"
)

// TestResponse: an Azure SDK response error gives fileio its status, its
// error code and a one-line text; ContainerNotFound means no bucket.
func TestResponse(t *testing.T) {
	err := fmt.Errorf("get: %w", &azcore.ResponseError{StatusCode: http.StatusNotFound, ErrorCode: "ContainerNotFound"})
	want := driver.Response{Status: 404, Code: "ContainerNotFound", Text: "azure: HTTP 404 ContainerNotFound", NoBucket: true}
	if r, ok := driver.ResponseOf(err); !ok || r != want {
		t.Errorf("ResponseOf = %+v, %v; want %+v", r, ok, want)
	}
	err = &azcore.ResponseError{StatusCode: http.StatusServiceUnavailable, ErrorCode: "ServerBusy"}
	want = driver.Response{Status: 503, Code: "ServerBusy", Text: "azure: HTTP 503 ServerBusy"}
	if r, ok := response(err); !ok || r != want {
		t.Errorf("response = %+v, %v; want %+v", r, ok, want)
	}
	if r, ok := response(errors.New("reset")); ok {
		t.Errorf("response(plain) = %+v, want none", r)
	}
}
