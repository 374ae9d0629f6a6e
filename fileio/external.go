package fileio

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"
)

// OpenLocation gives access to the file at the absolute location loc, as
// Java Paimon stores the locations of data files written to an external path
// (DataFileMeta._EXTERNAL_PATH, org.apache.paimon.fs.Path.toString):
// "file:/abs/dir/f", "file:///abs/dir/f", "/abs/dir/f", "s3://bucket/key"
// ("s3a://" and "s3n://" mean the same), "gs://bucket/key". It returns the
// FileIO to use, the file's path relative to it, and done, which releases
// that FileIO and must be called after use.
//
// A location below f's root is served by f itself (done does nothing).
// Otherwise a FileIO is opened on the directory of the file; on the store
// (scheme and bucket) of f it takes f's URL query (endpoint, region, ...),
// since fileio reads credentials from the environment only.
//
// Errors wrap ErrInvalidURL for a location that is relative, malformed, of
// another scheme, or on a mem:// store (private to one FileIO), naming loc.
func (f *FileIO) OpenLocation(ctx context.Context, loc string) (fio *FileIO, p string, done func() error, err error) {
	nop := func() error { return nil }
	canon, err := canonicalLocation(loc)
	if err != nil {
		return nil, "", nil, err
	}
	if f.err == nil {
		root := f.s.location(strings.TrimSuffix(f.prefix, "/"))
		if rel, ok := strings.CutPrefix(canon, root+"/"); ok && checkPath(rel) == nil {
			return f, rel, nop, nil
		}
	}
	dir, name := path.Split(canon)
	if checkPath(name) != nil {
		return nil, "", nil, fmt.Errorf("fileio: open location %q: %w: no file name", Redact(loc), ErrInvalidURL)
	}
	openURL := strings.TrimSuffix(dir, "/")
	if f.err == nil && f.s.query != "" && strings.HasPrefix(canon, f.s.urlRoot+"/") {
		openURL += "?" + f.s.query
	}
	ext, err := Open(ctx, openURL)
	if err != nil {
		return nil, "", nil, err
	}
	return ext, name, ext.Close, nil
}

// OpenDir returns a FileIO rooted at the absolute directory location loc
// (the forms of OpenLocation; a directory of data-file.external-paths) and
// its canonical location (CanonicalLocation). On the store of f it takes f's
// URL query. The FileIO must be closed after use. Errors wrap ErrInvalidURL.
func (f *FileIO) OpenDir(ctx context.Context, loc string) (*FileIO, string, error) {
	canon, err := canonicalLocation(strings.TrimSuffix(loc, "/"))
	if err != nil {
		return nil, "", err
	}
	openURL := canon
	if f.err == nil && f.s.query != "" && strings.HasPrefix(canon, f.s.urlRoot+"/") {
		openURL += "?" + f.s.query
	}
	d, err := Open(ctx, openURL)
	if err != nil {
		return nil, "", err
	}
	return d, canon, nil
}

// CanonicalLocation returns the absolute location loc (see
// [FileIO.OpenLocation]) in one spelling: "file:///abs/path",
// "s3://bucket/key" (also for s3a:// and s3n://) or "gs://bucket/key", so
// that two spellings of one file compare equal and a location is below a
// root exactly when it has the root's canonical form plus "/" as prefix.
// Errors wrap ErrInvalidURL.
func CanonicalLocation(loc string) (string, error) { return canonicalLocation(loc) }

// IsLocation reports whether p is a canonical location (CanonicalLocation)
// rather than a path relative to a FileIO root, which never holds "://".
func IsLocation(p string) bool { return strings.Contains(p, "://") }

// canonicalLocation returns loc as "file:///abs/path", "s3://bucket/key" or
// "gs://bucket/key", without query; errors wrap ErrInvalidURL.
func canonicalLocation(loc string) (string, error) {
	bad := func(why string) error {
		return fmt.Errorf("fileio: open location %q: %w: %s", Redact(loc), ErrInvalidURL, why)
	}
	if strings.HasPrefix(loc, "/") {
		loc = "file://" + loc
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "", bad("malformed")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", bad("query or fragment")
	}
	switch u.Scheme {
	case "file":
		if (u.Host != "" && u.Host != "localhost") || !strings.HasPrefix(u.Path, "/") {
			return "", bad("file locations need an absolute path and no host")
		}
		p := strings.TrimPrefix(u.Path, "/")
		if checkPath(p) != nil {
			return "", bad("bad path")
		}
		return "file:///" + p, nil
	case "s3", "s3a", "s3n", "gs":
		p := strings.TrimPrefix(u.Path, "/")
		if u.Host == "" || checkPath(p) != nil {
			return "", bad("missing bucket or bad key")
		}
		scheme := u.Scheme
		if scheme != "gs" {
			scheme = "s3"
		}
		return scheme + "://" + u.Host + "/" + p, nil
	default:
		return "", bad("unsupported scheme " + u.Scheme)
	}
}
