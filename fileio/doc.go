// Package fileio is the only way paimon-go touches storage: every byte of a
// table (schema, snapshot, manifest, data and index files) is read and written
// through a [FileIO].
//
// It plays the part of Java Paimon's org.apache.paimon.fs.FileIO
// (LocalFileIO, S3FileIO, ...) on top of gocloud.dev/blob, so one code path
// serves a local directory, memory, Amazon S3 (and S3-compatible stores such
// as MinIO), Google Cloud Storage and Azure Blob Storage. The last two are
// optional drivers, linked into a program only when it imports their
// packages (fileio/gcs, fileio/azure), as gocloud.dev/blob's are: their SDKs
// are about half of what fileio would link. Without the import, Open
// refuses the scheme with ErrInvalidURL naming the package.
//
// # Opening
//
// [Open] takes a URL naming the root directory of the FileIO, usually a
// warehouse or a table:
//
//   - file:///abs/path: a local directory (the default; a bare absolute or
//     relative path such as "/tmp/wh" or "wh" means the same). It is served
//     by a small driver of our own rather than gocloud.dev/blob/fileblob, so
//     that create-if-absent is atomic across processes and no ".attrs"
//     sidecar files appear next to table files.
//   - mem://: a fresh, empty in-memory store private to the returned FileIO
//     and its [FileIO.Sub] views (for tests).
//   - s3://bucket/prefix?endpoint=http://127.0.0.1:9000&use_path_style=true&region=us-east-1:
//     Amazon S3 or MinIO. Credentials come from the environment
//     (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) or the shared AWS config,
//     never from the URL. The query parameters are those of
//     gocloud.dev/blob/s3blob.
//   - gs://bucket/prefix, with package fileio/gcs imported: Google Cloud
//     Storage with Application Default Credentials; if STORAGE_EMULATOR_HOST
//     is set (host:port, no scheme), requests go to that emulator, e.g.
//     fake-gcs-server.
//   - azblob://container/prefix, with package fileio/azure imported: Azure
//     Blob Storage. The account and credentials come from the environment
//     as gocloud.dev/blob/azureblob reads them (AZURE_STORAGE_ACCOUNT with
//     AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN,
//     AZURE_STORAGE_CONNECTION_STRING, or azidentity's default chain), never
//     from the URL; the query may name storage_account, domain, protocol and
//     localemu (for Azurite:
//     ?localemu=true&protocol=http&domain=127.0.0.1:10000).
//
// # Paths
//
// Every method takes '/'-separated paths relative to the FileIO root, such as
// "snapshot/snapshot-1" or "dt=2024-01-01/bucket-0/data-0.parquet". Paths must
// not start or end with '/', nor contain empty, "." or ".." elements. Directory
// arguments (of [FileIO.List], [FileIO.ListRecursive] and [FileIO.Sub]) may be
// "" for the root. As on object stores, directories are implicit: they exist
// while some file below them exists, and [FileIO.Exists] reports files only.
//
// # Atomicity
//
// A file is never visible partially written. [FileIO.WriteFile] and
// [FileIO.Create] replace the whole object when they complete;
// [FileIO.CreateIfAbsent] publishes the object only if no object exists at the
// path, and exactly one of any number of racing callers, in any number of
// processes, succeeds. It is the primitive behind Paimon's snapshot commit
// (Java FileIO.tryToWriteAtomic). On S3, GCS and Azure it is a conditional
// PUT (If-None-Match: *, or GCS's ifGenerationMatch=0); on local disk the data is written to a hidden temporary
// file in the target directory (".<name>.<random>.tmp"), synced, and published
// with link(2), which fails if the target exists.
//
// # Retries
//
// Operations on remote stores that fail transiently are retried, up to 4
// attempts in total, with jittered exponential backoff (50 ms doubling, capped
// at 1 s). Every attempt of a remote request that is complete when it
// returns (whole-file reads and writes, ranged chunk reads of a File, HEADs,
// DELETEs, listing pages, create-if-absent) is given up after a minute
// without an answer and counts as transient, so a store that accepts
// connections and never answers fails a call within about four minutes
// instead of hanging it; streamed reads and writes are bounded by the
// caller's context only. Transient means an HTTP answer of 5xx, 429, 408 or 409 (S3's
// ConditionalRequestConflict), or an error without an HTTP answer (a network
// failure) whose gocloud.dev/gcerrors code is Unknown, Internal,
// ResourceExhausted or DeadlineExceeded, while ctx is still live. Not-found,
// exists, permission and other client errors are never retried. The S3 and
// Azure clients are built without their SDK's own retries (and GCS's are
// turned off for create-if-absent), so these are the only retries and
// [FileIO.Stats] sees every attempt. Streaming writes ([FileIO.Create]) are
// not retried as a whole because their data cannot be replayed; on S3 and
// Azure each request of the upload is retried by the SDK with its buffered
// body. Local and memory
// stores are not retried.
//
// # Request counting
//
// [FileIO.Stats] counts the store requests (GET, PUT, LIST, DELETE, HEAD)
// issued by a FileIO and all its Sub views, including retries.
//
// # Errors
//
// Errors returned by this package wrap a sentinel and name the operation and
// the full location, for example
//
//	fileio: read s3://bucket/wh/t/snapshot/snapshot-7: file does not exist
//
// The location, like every URL this package prints ([FileIO.URL], the errors
// of [Open]), has its credentials masked by [Redact]: the password of a
// userinfo, also inside a parameter such as endpoint=, and the values of
// credential-like parameters (secret, token, password, ...).
//
// Test them with errors.Is:
//
//   - [ErrNotExist] (identical to io/fs.ErrNotExist): the file does not exist.
//     A GCS 403, which gocloud reports as NotFound, wraps io/fs.ErrPermission
//     instead: a denial is no proof of absence.
//     Returned by ReadFile, NewRangeReader, Open, Size and Delete. Exists
//     reports false instead; List of a missing directory returns no entries.
//   - [ErrExist] (identical to io/fs.ErrExist): CreateIfAbsent found the path
//     already taken by another writer's data.
//   - [ErrOutcomeUnknown]: CreateIfAbsent cannot tell whether it created the
//     file (an answer was lost and the check failed); never wraps ErrExist.
//   - [ErrInvalidURL]: Open could not parse or does not support the URL.
//   - [ErrInvalidPath]: a path argument is malformed (see Paths).
//   - [ErrInvalidRange]: a negative offset.
//   - [ErrClosed] (identical to io/fs.ErrClosed): the FileIO or File was closed.
//
// Other errors come from the store; their gocloud.dev/gcerrors code is
// preserved, so gcerrors.Code(err) still works on them.
package fileio
