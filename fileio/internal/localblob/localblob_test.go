package localblob

import (
	"context"
	"io"
	"slices"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// The FileIO conformance suite (fileio/fileiotest) covers this driver through
// fileio; these tests cover the driver features fileio does not use.

func TestListNamePrefix(t *testing.T) {
	ctx := context.Background()
	b := OpenBucket(t.TempDir())
	defer b.Close()
	for _, k := range []string{"s/snapshot-1", "s/snapshot-2", "s/sub/x", "s/schema-0", "s/snapshotdir/y"} {
		if err := b.WriteAll(ctx, k, []byte("x"), nil); err != nil {
			t.Fatal(err)
		}
	}
	list := func(prefix, delim string) []string {
		var keys []string
		it := b.List(&blob.ListOptions{Prefix: prefix, Delimiter: delim})
		for {
			o, err := it.Next(ctx)
			if err == io.EOF {
				return keys
			}
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, o.Key)
		}
	}
	if got, want := list("s/snap", "/"), []string{"s/snapshot-1", "s/snapshot-2", "s/snapshotdir/"}; !slices.Equal(got, want) {
		t.Errorf("List(s/snap, /) = %q, want %q", got, want)
	}
	if got, want := list("s/snap", ""), []string{"s/snapshot-1", "s/snapshot-2", "s/snapshotdir/y"}; !slices.Equal(got, want) {
		t.Errorf("List(s/snap) = %q, want %q", got, want)
	}
	// Pages of 2 keys, resumed after the last key of the previous page.
	keys, next, err := b.ListPage(ctx, blob.FirstPageToken, 2, &blob.ListOptions{Prefix: "s/"})
	if err != nil || !slices.Equal(keys2(keys), []string{"s/schema-0", "s/snapshot-1"}) || string(next) != "s/snapshot-1" {
		t.Errorf("first page %q, next %q, %v", keys2(keys), next, err)
	}
	keys, next, err = b.ListPage(ctx, next, 2, &blob.ListOptions{Prefix: "s/"})
	if err != nil || !slices.Equal(keys2(keys), []string{"s/snapshot-2", "s/snapshotdir/y"}) {
		t.Errorf("second page %q, next %q, %v", keys2(keys), next, err)
	}
	if _, _, err := b.ListPage(ctx, blob.FirstPageToken, 10, &blob.ListOptions{Delimiter: "."}); gcerrors.Code(err) != gcerrors.Unimplemented {
		t.Errorf("delimiter '.': %v, want Unimplemented", err)
	}
}

func keys2(objs []*blob.ListObject) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Key)
	}
	return out
}

func TestCopyAndInvalidKeys(t *testing.T) {
	ctx := context.Background()
	b := OpenBucket(t.TempDir())
	defer b.Close()
	if err := b.WriteAll(ctx, "a/src", []byte("content"), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Copy(ctx, "b/dst", "a/src", nil); err != nil {
		t.Fatal(err)
	}
	if got, err := b.ReadAll(ctx, "b/dst"); err != nil || string(got) != "content" {
		t.Errorf("copy holds %q, %v", got, err)
	}
	if err := b.Copy(ctx, "b/dst2", "a/missing", nil); gcerrors.Code(err) != gcerrors.NotFound {
		t.Errorf("copy of a missing key: %v, want NotFound", err)
	}
	for _, k := range []string{"../x", "a/../../x", "/abs", "a//b", `a\b`} {
		if err := b.WriteAll(ctx, k, []byte("x"), nil); gcerrors.Code(err) != gcerrors.InvalidArgument {
			t.Errorf("write %q: %v, want InvalidArgument", k, err)
		}
	}
	if _, err := b.SignedURL(ctx, "a/src", nil); gcerrors.Code(err) != gcerrors.Unimplemented {
		t.Errorf("SignedURL: %v, want Unimplemented", err)
	}
}
