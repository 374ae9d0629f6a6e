package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/testenv"
)

// runCLI runs the test binary as paimon (TestMain) in dir with args and
// returns its stdout, stderr and exit code.
func runCLI(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), cliEnv+"=1"), env...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("paimon %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// secretCommands are arguments that make every subcommand of the CLI fail
// on the table at url once they open it (a missing table, or a store that
// cannot be reached); file is an input file for import.
func secretCommands(url, file string) map[string][][]string {
	return map[string][][]string{
		"snapshots":     {{"snapshots", url}, {"snapshots", "--branch", "b1", url}},
		"schema":        {{"schema", url}},
		"files":         {{"files", url}},
		"cat":           {{"cat", url}, {"cat", "--realtime", url}},
		"create":        {{"create", "--column", "a:INT", url}},
		"import":        {{"import", url, file}},
		"expire":        {{"expire", url}},
		"clean-orphans": {{"clean-orphans", url}},
		"tag":           {{"tag", "create", url, "t1"}, {"tag", "delete", url, "t1"}, {"tag", "list", url}},
		"rollback":      {{"rollback", "--to", "1", url}},
		"compact":       {{"compact", url}, {"compact", "--manifests", url}},
		"alter":         {{"alter", url, "--set", "a=1"}},
		"tail":          {{"tail", "--from", "earliest", url}, {"tail", "--consumer", "c1", url}},
		"lookup":        {{"lookup", "--key", "k=1", url}, {"lookup", "--realtime", "--key", "k=1", url}},
		"serve":         {{"serve", "--token", "x", "--listen", "127.0.0.1:0", url}},
	}
}

// TestSecretsNeverPrinted plants a secret in every place of a table URL
// that can hold a credential (a parameter fileio refuses, the password of
// the userinfo, the password in the endpoint parameter) and runs every
// subcommand of the CLI (as listed by its command table) so that it fails:
// the secret appears neither on stdout nor on stderr, and stderr names the
// redacted location (issue 12, part 4).
func TestSecretsNeverPrinted(t *testing.T) {
	const secret = "PLANTED-S3CR3T-7f3a"
	dir := t.TempDir()
	input := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(input, []byte(`{"a": 1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An existing table, for create to fail on.
	existing := filepath.Join(dir, "t")
	if _, stderr, code := runCLI(t, dir, nil, "create", "--column", "a:INT", existing); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	// Credentials for the s3 client, so that it never looks further (no
	// instance metadata requests); for gs://, an emulator address, so that
	// no credential lookup happens either.
	env := []string{"AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=" + secret, "AWS_EC2_METADATA_DISABLED=true",
		"STORAGE_EMULATOR_HOST=127.0.0.1:1"}
	s3q := "endpoint=http://u:" + secret + "@127.0.0.1:1&use_path_style=true&region=us-east-1"
	type variant struct {
		name, url string
		// createURL is the URL create fails on (default url).
		createURL string
		want      string // in stderr: the redacted location
	}
	variants := []variant{
		{name: "secret_access_key", url: "s3://bucket/t?region=us-east-1&secret_access_key=" + secret,
			want: `"s3://bucket/t?region=us-east-1&secret_access_key=xxxxx"`},
		{name: "session_token", url: "s3://bucket/t?session_token=" + secret,
			want: `"s3://bucket/t?session_token=xxxxx"`},
		{name: "gs-session_token", url: "gs://bucket/t?session_token=" + secret,
			want: `"gs://bucket/t?session_token=xxxxx"`},
		{name: "userinfo+endpoint", url: "s3://AKID:" + secret + "@bucket/t?" + s3q, want: "s3://bucket/t"},
		{name: "userinfo-in-warehouse", url: "s3://AKID:" + secret + "@bucket/wh/db.db/t?" + s3q, want: "s3://bucket/wh"},
		{name: "local-userinfo", url: "file://u:" + secret + "@" + filepath.Join(dir, "nope"),
			createURL: "file://u:" + secret + "@" + existing, want: "file://u:xxxxx@" + dir},
	}
	if os.Getenv("MINIO_BIN") != "" || os.Getenv("CI") == "true" {
		// A reachable store that ignores the userinfo of the endpoint:
		// the table is missing ("table … does not exist").
		bucket := testenv.MinIO(t)
		env = []string{"STORAGE_EMULATOR_HOST=127.0.0.1:1"} // and MinIO's credentials, set by testenv.MinIO
		u := strings.Replace(strings.Replace(bucket, "?", "/nope?", 1), "endpoint=http://", "endpoint=http://u:"+secret+"@", 1)
		bu, _, _ := strings.Cut(bucket, "?")
		if _, stderr, code := runCLI(t, dir, nil, "create", "--column", "a:INT", strings.Replace(u, "/nope?", "/t?", 1)); code != 0 {
			t.Fatalf("create on MinIO: %s", stderr)
		}
		variants = append(variants, variant{name: "minio-endpoint-userinfo", url: u,
			createURL: strings.Replace(u, "/nope?", "/t?", 1), want: bu + "/"})
	}

	// A table whose schema has a malformed option: the message suggests
	// the alter command with the (redacted) URL.
	bad := filepath.Join(dir, "bad")
	if _, stderr, code := runCLI(t, dir, nil, "create", "--column", "a:INT", bad); code != 0 {
		t.Fatalf("create: %s", stderr)
	}
	setSchemaOption(t, filepath.Join(bad, "schema", "schema-0"), "snapshot.num-retained.min", "ten")
	badURL := "file://u:xxxxx@" + bad
	want := "table " + badURL + ` has a malformed option in its schema: snapshot.num-retained.min="ten": not a 32-bit integer` +
		" (fix it with: paimon alter " + badURL + " --set snapshot.num-retained.min=VALUE)\n"
	if stdout, stderr, code := runCLI(t, dir, nil, "cat", "file://u:"+secret+"@"+bad); code != 1 || stdout != "" || stderr != want {
		t.Errorf("cat of a malformed table: exit %d, stdout %q, stderr %q; want exit 1, stderr %q", code, stdout, stderr, want)
	}

	var names []string
	for _, c := range newRoot(io.Discard).Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			names = append(names, c.Name())
		}
	}
	slices.Sort(names)
	cmds := secretCommands("URL", input)
	for _, n := range names {
		if _, ok := cmds[n]; !ok {
			t.Errorf("subcommand %q has no case in secretCommands", n)
		}
	}
	for _, v := range variants {
		for _, n := range names {
			u := v.url
			if n == "create" && v.createURL != "" {
				u = v.createURL
			}
			for _, args := range secretCommands(u, input)[n] {
				stdout, stderr, code := runCLI(t, dir, env, args...)
				shown := strings.ReplaceAll(strings.Join(args, " "), secret, "SECRET")
				if strings.Contains(stdout+stderr, secret) {
					t.Errorf("%s: paimon %s printed the secret:\nstdout: %s\nstderr: %s", v.name, shown, stdout, stderr)
				}
				if code != 1 || !strings.Contains(stderr, v.want) {
					t.Errorf("%s: paimon %s: exit %d, stderr %q; want exit 1 and stderr naming %s", v.name, shown, code, stderr, v.want)
				}
			}
		}
	}
}
