package commit

import (
	"context"

	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/snapshot"
)

// changelog is the changelog of one commit part: the ADD entries of the
// messages' changelog files (Data.ChangelogFiles for the APPEND part,
// Compact.ChangelogFiles for the COMPACT part), as Java's
// ManifestEntryChanges collects appendChangelog and compactChangelog.
//
// Its manifests and changelog manifest list do not depend on the base
// snapshot, so they are written once per part, alongside the delta, and
// every attempt of the part reuses them (Java writes them anew in each
// tryCommitOnce and deletes them after a failed attempt; the files and the
// snapshot fields are the same). They are deleted when the part fails with
// a known outcome and kept when the snapshot was or may have been published.
type changelog struct {
	entries []manifest.Entry
	d       *delta // nil when entries is empty or not yet started
}

// add appends the ADD entries of one message's changelog files.
func (cl *changelog) add(m *Message, files []manifest.DataFileMeta) {
	for _, f := range files {
		cl.entries = append(cl.entries, manifest.Entry{Kind: manifest.Add, Partition: m.Partition, Bucket: m.Bucket,
			TotalBuckets: m.TotalBuckets, File: f})
	}
}

// start writes the changelog manifests and list in the background; nothing
// when there is no changelog.
func (cl *changelog) start(ctx context.Context, c *Committer) {
	if len(cl.entries) > 0 && cl.d == nil {
		cl.d = c.writeDelta(ctx, cl.entries, "")
	}
}

// wait waits for the background write; nil when there is no changelog.
func (cl *changelog) wait() error {
	if cl.d == nil {
		return nil
	}
	return cl.d.wait()
}

// clean deletes the written changelog manifests and list (after a failure
// whose outcome is known: no snapshot names them).
func (cl *changelog) clean(ctx context.Context, c *Committer) {
	if cl.d != nil && cl.d.wait() == nil {
		c.mw.deleteFiles(ctx, cl.d.names()...)
	}
	cl.d = nil
}

// puts is when the changelog files were written, for WithTrace (nil when
// there is no changelog).
func (cl *changelog) puts() *putSpans {
	if cl.d == nil {
		return nil
	}
	return cl.d.puts
}

// record sets the snapshot's changelog fields as Java's
// FileStoreCommitImpl.tryCommitOnce does: changelogManifestList and its
// size, and changelogRecordCount, Σ row count of the changelog files (Java
// ManifestEntry.nullableRecordCount); all three stay nil without changelog.
// Call after wait returned nil.
func (cl *changelog) record(s *snapshot.Snapshot) {
	if cl.d == nil {
		return
	}
	name, size := cl.d.list.name, int64(len(cl.d.list.data))
	var n int64
	for _, e := range cl.entries {
		n += e.File.RowCount
	}
	s.ChangelogManifestList, s.ChangelogManifestListSize, s.ChangelogRecordCount = &name, &size, &n
}
