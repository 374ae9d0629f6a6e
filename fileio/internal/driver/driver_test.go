package driver_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/fileio/internal/driver"
)

// TestSchemeWithoutDriver: this test binary links neither fileio/gcs nor
// fileio/azure, so Open refuses their schemes and names the import.
func TestSchemeWithoutDriver(t *testing.T) {
	for scheme, pkg := range map[string]string{
		"gs":     "github.com/paimon-go/paimon/fileio/gcs",
		"azblob": "github.com/paimon-go/paimon/fileio/azure",
	} {
		if _, ok := driver.Lookup(scheme); ok {
			t.Fatalf("%s: registered in a binary that does not import %s", scheme, pkg)
		}
		_, err := fileio.Open(context.Background(), scheme+"://bucket/wh")
		want := `fileio: open "` + scheme + `://bucket/wh": invalid file URL: the ` + scheme + `:// driver is not linked: import _ "` + pkg + `"`
		if !errors.Is(err, fileio.ErrInvalidURL) || err.Error() != want {
			t.Errorf("%s: Open: %v\nwant %s", scheme, err, want)
		}
	}
}

type statusErr struct{ code int }

func (e statusErr) Error() string { return "status" }

// TestRegistry: a scheme registers once; ResponseOf asks the drivers in
// scheme order and takes the first answer.
func TestRegistry(t *testing.T) {
	read := func(tag string) func(error) (driver.Response, bool) {
		return func(err error) (driver.Response, bool) {
			var se statusErr
			if !errors.As(err, &se) {
				return driver.Response{}, false
			}
			return driver.Response{Status: se.code, Code: tag}, true
		}
	}
	driver.Register("test-b", driver.Driver{Response: read("b")})
	driver.Register("test-a", driver.Driver{Response: read("a")})
	driver.Register("test-c", driver.Driver{})
	if _, ok := driver.Lookup("test-c"); !ok {
		t.Fatal("test-c not registered")
	}
	r, ok := driver.ResponseOf(errors.Join(errors.New("x"), statusErr{503}))
	if !ok || r != (driver.Response{Status: 503, Code: "a"}) {
		t.Errorf("ResponseOf = %+v, %v; want status 503 from test-a", r, ok)
	}
	if r, ok := driver.ResponseOf(errors.New("plain")); ok {
		t.Errorf("ResponseOf(plain) = %+v, want none", r)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "test-a registered twice") {
			t.Errorf("second Register: recovered %v, want a panic naming the scheme", p)
		}
	}()
	driver.Register("test-a", driver.Driver{})
}

// TestLinkedOnlyWhenImported: the packages a library user imports for the
// table format and the real-time layer do not link the GCS or Azure SDKs;
// the driver packages do.
func TestLinkedOnlyWhenImported(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	deps := func(pkgs ...string) string {
		out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
		if err != nil {
			t.Fatalf("go list -deps %v: %v", pkgs, err)
		}
		return string(out)
	}
	// gocloud itself links gRPC's status codes; the GCS client adds xDS and
	// envoy's protobuf packages.
	heavy := []string{"cloud.google.com/go/storage\n", "github.com/envoyproxy/go-control-plane/envoy/config/core/v3\n", "github.com/Azure/azure-sdk-for-go/sdk/azcore\n"}
	lib := deps("github.com/paimon-go/paimon", "github.com/paimon-go/paimon/realtime", "github.com/paimon-go/paimon/fileio")
	for _, h := range heavy {
		if strings.Contains(lib, h) {
			t.Errorf("the library links %s", strings.TrimSpace(h))
		}
	}
	if d := deps("github.com/paimon-go/paimon/fileio/gcs"); !strings.Contains(d, heavy[0]) {
		t.Errorf("fileio/gcs does not link %s", strings.TrimSpace(heavy[0]))
	}
	if d := deps("github.com/paimon-go/paimon/fileio/azure"); !strings.Contains(d, heavy[2]) {
		t.Errorf("fileio/azure does not link %s", strings.TrimSpace(heavy[2]))
	}
}
