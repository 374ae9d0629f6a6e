package fileio_test

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/testenv"
)

// TestOpenAzureURLs: azblob:// URLs are checked before any request: a
// missing container, an unknown or repeated query parameter, a remote
// domain over http, or no storage account are typed errors naming the URL
// without its secrets.
func TestOpenAzureURLs(t *testing.T) {
	for _, env := range []string{"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN",
		"AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING", "AZURE_STORAGE_DOMAIN",
		"AZURE_STORAGE_PROTOCOL", "AZURE_STORAGE_IS_LOCAL_EMULATOR", "AZURE_STORAGE_IS_CDN"} {
		t.Setenv(env, "")
	}
	for _, c := range []struct {
		url     string
		want    error
		message string
	}{
		{"azblob:///prefix", fileio.ErrInvalidURL, "missing bucket name"},
		{"azblob://c?storage_account=a&sig=SECRET", fileio.ErrInvalidURL, `unknown query parameter "sig"`},
		{"azblob://c?storage_account=a&storage_account=b", fileio.ErrInvalidURL, "storage_account given 2 times"},
		{"azblob://c?storage_account=a&localemu=maybe", fileio.ErrInvalidURL, `localemu="maybe"`},
		{"azblob://c?storage_account=a&protocol=http&domain=example.com", fileio.ErrInvalidURL, "only allowed when IsLocalEmulator is true"},
		{"azblob://c?localemu=true&protocol=http&domain=10.0.0.1:10000&storage_account=a", fileio.ErrInvalidURL, "non-loopback"},
		{"azblob://c/wh", fileio.ErrNoCredentials, "no Azure storage account"},
	} {
		_, err := fileio.Open(context.Background(), c.url)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.message) {
			t.Errorf("Open(%q) = %v, want %v with %q", c.url, err, c.want, c.message)
		}
		if err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("Open(%q): error shows the secret: %v", c.url, err)
		}
	}
	// With an account and a key, the URL opens without a request.
	t.Setenv("AZURE_STORAGE_ACCOUNT", "acct")
	t.Setenv("AZURE_STORAGE_KEY", "a2V5")
	fio, err := fileio.Open(context.Background(), "azblob://c/wh/db.db?localemu=true&protocol=http&domain=127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	if got := fio.URL(); got != "azblob://c/wh/db.db?localemu=true&protocol=http&domain=127.0.0.1:1" {
		t.Errorf("URL() = %q", got)
	}
}

// TestAzureSecretsMasked: errors of an azblob:// FileIO never show the
// SAS signature of AZURE_STORAGE_SAS_TOKEN (the SDK repeats the request
// URL, SAS query included) nor the account key.
func TestAzureSecretsMasked(t *testing.T) {
	for _, env := range []string{"AZURE_STORAGE_KEY", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING"} {
		t.Setenv(env, "")
	}
	const sig = "XBJa4PN4MsWv0c/y3kZDJkTT5VwIpxN/lZEvJhaHAUQ="
	t.Setenv("AZURE_STORAGE_ACCOUNT", "devstoreaccount1")
	t.Setenv("AZURE_STORAGE_SAS_TOKEN", "sv=2021-08-06&se=2030-01-01T00%3A00%3A00Z&sr=c&sp=racwdl&sig="+url.QueryEscape(sig))
	// Nothing listens on port 1: the request fails with its URL in the error.
	fio, err := fileio.Open(context.Background(), "azblob://whx/db?localemu=true&protocol=http&domain=127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	_, err = fio.ReadFile(context.Background(), "snapshot/LATEST")
	if err == nil {
		t.Fatal("read from a closed port succeeded")
	}
	msg := err.Error()
	if strings.Contains(msg, sig) || strings.Contains(msg, url.QueryEscape(sig)) || !strings.Contains(msg, fileio.Redacted) {
		t.Errorf("error shows the SAS signature or masks nothing: %s", msg)
	}
}

// TestAzureWrongKey: a request Azure denies (a wrong account key) is a
// short error wrapping fs.ErrPermission, not retried, and names the file.
func TestAzureWrongKey(t *testing.T) {
	u := testenv.Azurite(t)
	t.Setenv("AZURE_STORAGE_KEY", "d3Jvbmd3cm9uZ3dyb25n")
	fio := openURL(t, u)
	defer fio.Close()
	_, err := fio.ReadFile(context.Background(), "snapshot/LATEST")
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "snapshot/LATEST") || len(err.Error()) > 300 {
		t.Fatalf("read with a wrong key: %v (%d bytes), want a short fs.ErrPermission naming the file", err, len(err.Error()))
	}
	if got := fio.Stats(); got.Get != 1 {
		t.Errorf("requests %+v, want 1 GET (a denial is not retried)", got)
	}
}

// TestMissingBucket: a container or bucket that does not exist is
// fs.ErrNotExist with a message that says so, on Azurite and MinIO.
func TestMissingBucket(t *testing.T) {
	for name, u := range map[string]func(testing.TB) string{"azure": testenv.Azurite, "minio": testenv.MinIO} {
		t.Run(name, func(t *testing.T) {
			good := u(t)
			scheme, rest, _ := strings.Cut(good, "://")
			_, query, _ := strings.Cut(rest, "?")
			fio := openURL(t, scheme+"://nosuchbucket0/wh?"+query)
			defer fio.Close()
			_, err := fio.List(context.Background(), "db.db")
			if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, fileio.ErrNoBucket) || !strings.Contains(err.Error(), "the bucket or container does not exist") {
				t.Fatalf("list in a missing bucket: %v", err)
			}
		})
	}
}
