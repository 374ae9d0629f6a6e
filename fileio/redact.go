package fileio

import (
	"net/url"
	"os"
	"strings"
	"unicode"
)

// Redacted is what [Redact] writes in place of a password or of the value of
// a credential parameter (the mask net/url's URL.Redacted uses).
const Redacted = "xxxxx"

// Redact returns rawURL with its credentials masked, for error messages, log
// lines and CLI output. It never fails: text that is not a URL (a local path)
// comes back unchanged.
//
//   - The password of a userinfo ("scheme://user:PASSWORD@host") becomes
//     [Redacted]; the user name stays readable.
//   - The value of every query parameter whose name looks like a credential
//     becomes [Redacted]: a name that contains, in any case, "secret",
//     "passw", "token", "credential", "signature" or "session", or one of
//     whose words ("_", "-", "." separated) is "auth", "pwd", "authorization",
//     "sig" or "sas" (Azure SAS) or ends in "key" (access_key, apikey, api-key). Names whose
//     last word is "name", "path", "file" or "duration" (role_session_name,
//     private_key_path) hold no secret and stay readable.
//   - The value of any other parameter is redacted recursively when it is
//     itself a URL, so "endpoint=http://u:PASSWORD@host" keeps its host and
//     loses its password.
//
// Parameter names, other values, the scheme, host and path stay as they
// are, so the result still names the location. fileio takes no credential
// from a URL (see the package documentation), so [Open] of the redacted URL
// of a FileIO reaches the same files.
func Redact(rawURL string) string { return redact(rawURL, nil) }

// redact is Redact, calling found (when not nil) with every secret it
// masks, as it appears in rawURL and unescaped.
func redact(rawURL string, found func(string)) string {
	base, query, hasQuery := strings.Cut(rawURL, "?")
	base = redactUserinfo(base, found)
	if !hasQuery {
		return base
	}
	query, frag, hasFrag := strings.Cut(query, "#")
	params := strings.Split(query, "&")
	for i, p := range params {
		name, value, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		dname, err := url.QueryUnescape(name)
		if err != nil {
			dname = name
		}
		dvalue, err := url.QueryUnescape(value)
		if err != nil {
			dvalue = value
		}
		if credentialName(dname) {
			if value != "" {
				params[i] = name + "=" + Redacted
				report(found, value, dvalue)
			}
			continue
		}
		if r := redact(dvalue, found); r != dvalue {
			params[i] = name + "=" + url.QueryEscape(r)
		}
	}
	out := base + "?" + strings.Join(params, "&")
	if hasFrag {
		out += "#" + frag
	}
	return out
}

// report calls found (if not nil) with each of the forms of a secret.
func report(found func(string), forms ...string) {
	if found != nil {
		for _, f := range forms {
			found(f)
		}
	}
}

// redactUserinfo masks the password of the userinfo of a URL without query.
func redactUserinfo(s string, found func(string)) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	authority := s[i+3:]
	if j := strings.IndexByte(authority, '/'); j >= 0 && strings.IndexByte(authority[:j], '@') >= 0 {
		authority = authority[:j]
	}
	// Without an '@' before the first '/', the last '@' of the text still
	// ends the userinfo when a password holds an unescaped '/' (AWS secret
	// keys do): better to mask a path with ':' and '@' in it than to print
	// such a password.
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return s
	}
	user, password, hasPassword := strings.Cut(authority[:at], ":")
	if !hasPassword {
		return s
	}
	if p, err := url.PathUnescape(password); err == nil {
		report(found, password, p)
	} else {
		report(found, password)
	}
	return s[:i+3] + user + ":" + Redacted + s[i+3+at:]
}

// credentialName reports whether a query parameter name looks like it
// holds a credential (see Redact).
func credentialName(name string) bool {
	n := strings.ToLower(name)
	words := strings.FieldsFunc(n, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return false
	}
	switch words[len(words)-1] {
	case "name", "path", "file", "duration":
		return false
	}
	for _, s := range []string{"secret", "passw", "token", "credential", "signature", "session"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	for _, w := range words {
		switch {
		case w == "auth", w == "pwd", w == "authorization", w == "sig", w == "sas", strings.HasSuffix(w, "key"):
			return true
		}
	}
	return false
}

// minSecret is the length from which redactError masks a secret in the
// text of an error: shorter strings would mask unrelated text.
const minSecret = 4

// redactError returns err with every secret of rawURL (see Redact) of at
// least minSecret bytes replaced by Redacted in its text, for errors of
// drivers that repeat the URL they were given; errors.Is, errors.As and
// gcerrors.Code see err's chain as before.
func redactError(err error, rawURL string) error { return maskError(err, secretsOf(rawURL)) }

// secretsOf returns the secrets of rawURL (see Redact) of at least
// minSecret bytes.
func secretsOf(rawURL string) []string {
	var secrets []string
	redact(rawURL, func(s string) {
		if len(s) >= minSecret {
			secrets = append(secrets, s)
		}
	})
	return secrets
}

// maskError returns err with every one of secrets replaced by Redacted in
// its text (err itself when none occurs); errors.Is, errors.As and
// gcerrors.Code see err's chain as before.
func maskError(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	msg := err.Error()
	masked := msg
	for _, s := range secrets {
		masked = strings.ReplaceAll(masked, s, Redacted)
	}
	if masked == msg {
		return err
	}
	return &redactedError{err: err, msg: masked}
}

// redactedError is an error whose text has its secrets masked.
type redactedError struct {
	err error
	msg string
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// azureSecrets returns the secrets of the Azure credentials in the
// environment, as they may appear in the SDK's errors (which repeat a
// request's URL, SAS query included): the account key, and the secret
// values of a SAS token (AZURE_STORAGE_SAS_TOKEN, or the
// SharedAccessSignature of AZURE_STORAGE_CONNECTION_STRING) both decoded
// and query-escaped.
func azureSecrets() []string {
	var out []string
	add := func(s string) {
		if len(s) >= minSecret {
			out = append(out, s)
		}
	}
	add(os.Getenv("AZURE_STORAGE_KEY"))
	sas := []string{os.Getenv("AZURE_STORAGE_SAS_TOKEN")}
	for part := range strings.SplitSeq(os.Getenv("AZURE_STORAGE_CONNECTION_STRING"), ";") {
		k, v, _ := strings.Cut(part, "=")
		switch strings.ToLower(k) {
		case "accountkey":
			add(v)
		case "sharedaccesssignature":
			sas = append(sas, v)
		}
	}
	for _, t := range sas {
		if t == "" {
			continue
		}
		for _, s := range secretsOf("azblob://c/?" + strings.TrimPrefix(t, "?")) {
			add(s)
			add(url.QueryEscape(s))
		}
	}
	return out
}
