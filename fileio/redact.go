package fileio

import (
	"net/url"
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
//     whose words ("_", "-", "." separated) is "auth", "pwd", "authorization"
//     or ends in "key" (access_key, apikey, api-key). Names whose
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
func Redact(rawURL string) string {
	base, query, hasQuery := strings.Cut(rawURL, "?")
	base = redactUserinfo(base)
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
		if credentialName(dname) {
			if value != "" {
				params[i] = name + "=" + Redacted
			}
			continue
		}
		dvalue, err := url.QueryUnescape(value)
		if err != nil {
			dvalue = value
		}
		if r := Redact(dvalue); r != dvalue {
			params[i] = name + "=" + url.QueryEscape(r)
		}
	}
	out := base + "?" + strings.Join(params, "&")
	if hasFrag {
		out += "#" + frag
	}
	return out
}

// redactUserinfo masks the password of the userinfo of a URL without query.
func redactUserinfo(s string) string {
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
	user, _, hasPassword := strings.Cut(authority[:at], ":")
	if !hasPassword {
		return s
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
		case w == "auth", w == "pwd", w == "authorization", strings.HasSuffix(w, "key"):
			return true
		}
	}
	return false
}
