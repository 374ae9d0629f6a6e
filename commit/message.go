package commit

import "github.com/paimon-go/paimon/manifest"

// Message is what a writer hands to the committer for one partition-bucket:
// the files it added and removed since its previous message (Java
// org.apache.paimon.table.sink.CommitMessageImpl). Writers produce messages
// with writer.Write.PrepareCommit; Committer.Commit publishes them.
type Message struct {
	// Partition is the serialized partition BinaryRow (row.Serialize; the
	// 12-byte empty row for unpartitioned tables), as stored in manifests.
	Partition []byte
	// Bucket is the bucket id (0 for bucket-unaware append tables).
	Bucket int32
	// TotalBuckets is the bucket count the files were written for: the
	// "bucket" option for fixed buckets, -1 for unaware and dynamic
	// buckets, -2 for postpone. It becomes the entries' _TOTAL_BUCKETS.
	TotalBuckets int32
	// Data are the changes of the normal write path (Java DataIncrement).
	Data DataIncrement
	// Compact are the changes of compaction (Java CompactIncrement).
	Compact CompactIncrement
	// HashIndexSeen, for messages of dynamic-bucket tables carrying a HASH
	// index file, names every HASH index file of the partition that the
	// writer's bucket assignment was built from (including those it wrote
	// itself). A HASH file of the partition in the snapshot a commit builds
	// on that is not listed was written by another writer meanwhile, and
	// the committer reconciles the two assignments (package hashindex,
	// Reconcile). Java has no counterpart (one assigner per key range).
	HashIndexSeen []string
	// KeyIndexFrom, for messages of cross-partition upsert tables, is the
	// snapshot id the writer's key index was bootstrapped from (0: an
	// empty table; package keyindex). Keys that other commit users added
	// in later snapshots in another partition-bucket than this message
	// are reconciled with it (see the package documentation,
	// Cross-partition upserts across writers). The zero value checks
	// every snapshot. Java has no counterpart (one key index per table).
	KeyIndexFrom int64
	// OnResequenced, when set, is called once the snapshot holding
	// Data.NewFiles is published, if the committer replaced those files by
	// copies with higher sequence numbers because another writer had
	// committed files to the bucket meanwhile (see the package
	// documentation, Sequence numbers across writers). Writers set it to
	// keep their levels and sequence counters in step with the table. It is
	// called on the committing goroutine and must not call the Committer.
	OnResequenced func(Resequenced)
	// OnCompactionRefused, when set, is called when the snapshot holding
	// Data was published and the COMPACT snapshot of the messages failed
	// with ErrConflict (a concurrent compaction took their input files, or
	// another writer committed to a compacted bucket meanwhile). When every
	// message with compaction changes sets it, Commit and CommitWithProgress
	// report success: the writer has taken the refusal over (it rebuilds the
	// bucket's levels from the table before compacting again), and the
	// compaction outputs are left to orphan cleaning. Otherwise the commit
	// returns ErrCompactionNotCommitted. It is called on the committing
	// goroutine and must not call the Committer.
	OnCompactionRefused func(partition []byte, bucket int32)
	// Levels, for messages of primary-key buckets with compaction changes,
	// describes the bucket as the writer's compactions saw it (see the
	// package documentation, Sequence numbers across writers). nil: unknown;
	// the committer then assumes the writer saw every live file of the
	// bucket, and only refuses compactions whose inputs interleave with a
	// file they did not read. Java has no counterpart (one writer per
	// bucket).
	Levels *LevelsView
}

// LevelsView is what a writer's compactions of one bucket saw: every data
// file its levels held (Java's Levels of MergeTreeCompactManager) and
// whether a compaction may have dropped delete records. A live file of the
// bucket that is neither listed nor an input was committed by another
// writer meanwhile.
type LevelsView struct {
	// Files are the names of the data files of the writer's levels when
	// the message was prepared (inputs, outputs and untouched files alike).
	Files []string
	// DeletesKept reports that no compaction of the message dropped -D or
	// -U records (for each, Java's dropDelete was false and no deletion
	// vectors pushed records above level 0). False when unknown.
	DeletesKept bool
}

// DataIncrement lists the files a writer added or removed by writing (Java
// DataIncrement).
type DataIncrement struct {
	// NewFiles are new data files (level 0 for primary-key tables).
	NewFiles []manifest.DataFileMeta
	// DeletedFiles are data files removed by row-level changes; they must be
	// copies of the live files' metadata (manifest.Entry.Identifier).
	DeletedFiles []manifest.DataFileMeta
	// ChangelogFiles are changelog files produced by the writer
	// (changelog-producer = input).
	ChangelogFiles []manifest.DataFileMeta
	// NewIndexFiles and DeletedIndexFiles are index files (deletion vectors,
	// hash index) added or removed.
	NewIndexFiles     []manifest.IndexFileMeta
	DeletedIndexFiles []manifest.IndexFileMeta
}

// IsEmpty reports whether d changes nothing.
func (d *DataIncrement) IsEmpty() bool {
	return len(d.NewFiles) == 0 && len(d.DeletedFiles) == 0 && len(d.ChangelogFiles) == 0 &&
		len(d.NewIndexFiles) == 0 && len(d.DeletedIndexFiles) == 0
}

// CompactIncrement lists the files compaction rewrote (Java
// CompactIncrement): Before are the inputs it removes, After the outputs it
// adds (with FileSource COMPACT).
type CompactIncrement struct {
	Before            []manifest.DataFileMeta
	After             []manifest.DataFileMeta
	ChangelogFiles    []manifest.DataFileMeta
	NewIndexFiles     []manifest.IndexFileMeta
	DeletedIndexFiles []manifest.IndexFileMeta
}

// IsEmpty reports whether c changes nothing.
func (c *CompactIncrement) IsEmpty() bool {
	return len(c.Before) == 0 && len(c.After) == 0 && len(c.ChangelogFiles) == 0 &&
		len(c.NewIndexFiles) == 0 && len(c.DeletedIndexFiles) == 0
}

// IsEmpty reports whether m changes nothing (CommitMessageImpl.isEmpty).
func (m *Message) IsEmpty() bool { return m.Data.IsEmpty() && m.Compact.IsEmpty() }
