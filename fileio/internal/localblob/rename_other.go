//go:build !linux

package localblob

// renameNoReplace is unavailable outside Linux; publishNoReplace then relies
// on link(2) alone.
func renameNoReplace(tmp, path string) error { return errUnimplemented }
