package fileio_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"/tmp/wh/db.db/t", "/tmp/wh/db.db/t"},
		{"file:///tmp/wh", "file:///tmp/wh"},
		{"mem://", "mem://"},
		{"s3://bucket/wh?region=us-east-1&use_path_style=true", "s3://bucket/wh?region=us-east-1&use_path_style=true"},
		{"s3://AKID:S3CR3T@bucket/wh", "s3://AKID:xxxxx@bucket/wh"},
		{"s3://AKID@bucket/wh", "s3://AKID@bucket/wh"},
		// An AWS secret key holds '/' and '+', unescaped in a careless URL.
		{"s3://AKID:wJal/rXU+tn@bucket/wh", "s3://AKID:xxxxx@bucket/wh"},
		{"s3://b/wh?endpoint=http://u:S3CR3T@127.0.0.1:9000&region=r",
			"s3://b/wh?endpoint=http%3A%2F%2Fu%3Axxxxx%40127.0.0.1%3A9000&region=r"},
		{"s3://b/wh?endpoint=http%3A%2F%2Fu%3AS3CR3T%40host%3A9000",
			"s3://b/wh?endpoint=http%3A%2F%2Fu%3Axxxxx%40host%3A9000"},
		{"s3://b/wh?endpoint=http://127.0.0.1:9000", "s3://b/wh?endpoint=http://127.0.0.1:9000"},
		{"s3://b?secret_access_key=S3CR3T&region=r", "s3://b?secret_access_key=xxxxx&region=r"},
		{"s3://b?Session_Token=S3CR3T", "s3://b?Session_Token=xxxxx"},
		{"s3://b?X-Amz-Signature=S3CR3T&X-Amz-Credential=AKID%2F2024&X-Amz-Security-Token=S3CR3T",
			"s3://b?X-Amz-Signature=xxxxx&X-Amz-Credential=xxxxx&X-Amz-Security-Token=xxxxx"},
		{"gs://b?access_key=S3CR3T&AWSAccessKeyId=AKID&api-key=S3CR3T&password=S3CR3T&pwd=S3CR3T&auth=S3CR3T",
			"gs://b?access_key=xxxxx&AWSAccessKeyId=AKID&api-key=xxxxx&password=xxxxx&pwd=xxxxx&auth=xxxxx"},
		{"s3://b?role_session_name=me&private_key_path=/k.pem&web_identity_token_file=/t",
			"s3://b?role_session_name=me&private_key_path=/k.pem&web_identity_token_file=/t"},
		{"s3://b?token=&flag", "s3://b?token=&flag"},
		{"s3://b?keyspace=k&monkey=m", "s3://b?keyspace=k&monkey=xxxxx"},
	} {
		if got := fileio.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestOpenErrorsRedact: errors of Open name the URL with its credentials
// masked (the password of a userinfo, also inside the endpoint parameter,
// and the value of a credential parameter).
func TestOpenErrorsRedact(t *testing.T) {
	const secret = "S3CR3T-PLANTED"
	// No credential lookup for gs:// (which may ask a metadata server).
	t.Setenv("STORAGE_EMULATOR_HOST", "127.0.0.1:1")
	for _, tc := range []struct{ url, want string }{
		{"s3://bucket/wh?secret_access_key=" + secret,
			`fileio: open "s3://bucket/wh?secret_access_key=xxxxx": invalid file URL: unknown query parameter "secret_access_key"`},
		{"s3://bucket/wh?endpoint=http://u:" + secret + "@127.0.0.1:1&use_path_style=maybe",
			`fileio: open "s3://bucket/wh?endpoint=http%3A%2F%2Fu%3Axxxxx%40127.0.0.1%3A1&use_path_style=maybe": invalid file URL: use_path_style="maybe"`},
		{"s3://AKID:" + secret + "@bucket/wh/%zz",
			`fileio: open "s3://AKID:xxxxx@bucket/wh/%zz": invalid file URL: invalid URL escape "%zz"`},
		// gocloud's GCS opener repeats the URL in its error.
		{"gs://bucket/wh?session_token=" + secret,
			`fileio: open "gs://bucket/wh?session_token=xxxxx": invalid file URL: open bucket gs://bucket?session_token=xxxxx: invalid query parameter "session_token"`},
		{"mem://u:" + secret + "@host",
			`fileio: open "mem://u:xxxxx@host": invalid file URL: mem URLs take no host or query`},
	} {
		fio, err := fileio.Open(context.Background(), tc.url)
		if err == nil {
			fio.Close()
			t.Errorf("Open(%q) succeeded", tc.url)
			continue
		}
		invalid := strings.Contains(tc.want, fileio.ErrInvalidURL.Error())
		if err.Error() != tc.want || errors.Is(err, fileio.ErrInvalidURL) != invalid || strings.Contains(err.Error(), secret) {
			t.Errorf("Open: err = %q, want %q (wrapping ErrInvalidURL: %v)", err, tc.want, invalid)
		}
	}
}

// TestURLRedacted: URL() masks credentials kept in the query, and drops the
// userinfo of the URL given to Open.
func TestURLRedacted(t *testing.T) {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "s3://AKID:S3CR3T@bucket/wh?region=us-east-1&endpoint=http://u:S3CR3T@127.0.0.1:1&use_path_style=true")
	if err != nil {
		t.Fatal(err)
	}
	defer fio.Close()
	want := "s3://bucket/wh/t?region=us-east-1&endpoint=http%3A%2F%2Fu%3Axxxxx%40127.0.0.1%3A1&use_path_style=true"
	if got := fio.Sub("t").URL(); got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}
}

// TestRequestErrorsRedact: an endpoint whose password cannot be parsed
// (a bad port) opens, and each request then fails with the SDK's "failed
// to parse endpoint URL" repeating it; the password was printed. Errors of
// requests mask the URL's secrets as Open's errors do. Azure SAS
// signatures (sig=, sas=) are masked too.
func TestRequestErrorsRedact(t *testing.T) {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "s3://b/wh?endpoint=http://u:SEKRITU@127.0.0.1:9000x&region=us-east-1&use_path_style=true")
	if err != nil {
		if strings.Contains(err.Error(), "SEKRITU") {
			t.Fatalf("Open error shows the password: %v", err)
		}
		t.Skipf("Open refuses the URL: %v", err)
	}
	defer fio.Close()
	_, err = fio.ReadFile(ctx, "snapshot/LATEST")
	if err == nil || strings.Contains(err.Error(), "SEKRITU") {
		t.Fatalf("ReadFile: %v, want an error without the password", err)
	}
	if got, want := fileio.Redact("https://acct.blob.example/c?sv=2022&sig=SIGSECRET&sas=SASSECRET"), "https://acct.blob.example/c?sv=2022&sig=xxxxx&sas=xxxxx"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}
