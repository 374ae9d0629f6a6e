// Package deletionvector reads and writes Paimon deletion vectors and
// deletion-vector index files, byte for byte as Java Paimon does
// (org.apache.paimon.deletionvectors: DeletionVector, BitmapDeletionVector,
// Bitmap64DeletionVector, DeletionFileWriter, DeletionVectorIndexFileWriter,
// DeletionVectorsIndexFile; format doc section 9.2).
//
// A deletion vector marks rows of one data file as deleted by their 0-based
// row position in the file. Deletion vectors of one (partition, bucket) are
// stored together in an index file <table>/index/index-<uuid>-<n>:
//
//	byte      version = 1
//	blob...   one per data file, at the offsets recorded in the index
//	          manifest (manifest.DeletionVectorMeta, here [Range])
//
// A blob is
//
//	int32 BE  size = 4 + len(bitmap)
//	magic     32-bit: int32 BE 1581511376; 64-bit: int32 LE 1681511377
//	bitmap    32-bit: a RoaringBitmap in the portable format (Java
//	          RoaringBitmap after runOptimize);
//	          64-bit: int64 LE count, then per 32-bit bitmap an int32 LE key
//	          (the high 32 bits of the positions) and the bitmap, keys
//	          0..count-1 (Java OptimizedRoaringBitmap64)
//	int32 BE  CRC-32 (IEEE) of magic and bitmap
//
// The manifest's length of a blob excludes the size prefix and the CRC for
// 32-bit bitmaps (it is the size), and includes both for 64-bit bitmaps.
//
// A Maintainer (Java BucketedDvMaintainer) keeps the vectors of one
// partition-bucket while a writer compacts it: it is restored from the
// bucket's index files in the latest snapshot (BucketFiles,
// RestoreMaintainer), takes the deletions compaction finds
// (NotifyNewDeletion, RemoveDeletionVector) and writes all vectors of the
// bucket into one new index file for the commit message
// (WriteDeletionVectorsIndex), replacing the bucket's previous one.
//
// Membership is kept in github.com/RoaringBitmap/roaring/v2 bitmaps. The
// bytes are produced by this package rather than by roaring's serializer,
// because Java decides per container between array, bitmap and run
// encoding with rules (RoaringBitmap.runOptimize, which depends on the
// container's previous kind) that roaring's RunOptimize does not follow, and
// the 64-bit layout writes an empty bitmap for every key below the largest.
package deletionvector
