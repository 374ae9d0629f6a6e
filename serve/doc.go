// Package serve serves the real-time layer of a table to other processes
// over Arrow Flight (arrow-go's arrow/flight on gRPC), the step PIP-46 names
// after process-local real-time reads: "the real-time portion can also be
// returned independently. An external engine could read a committed Paimon
// snapshot, obtain its progress boundary, fetch newer real-time records, and
// perform append union or primary-key merge itself." Java Paimon's nearest
// counterparts are the query service of its lookup joins (KvQueryServer,
// recorded by ServiceManager under service/) and PIP-39's table$rt; neither
// serves outside Flink.
//
// # Server
//
// A Server (paimon serve) owns one realtime.Context of a table
// (realtime.enabled = true, a fixed bucket count) with one writer and one
// committer, and commits what it holds every Config.CommitInterval and at
// Shutdown. Every call must carry "authorization: Bearer <token>"
// (Unauthenticated otherwise). RPCs:
//
//   - DoPut: Arrow batches of the table's columns (matched by name), with an
//     optional "_ROW_KIND" column (Int8 or "+I"/"-U"/"+U"/"-D") and an
//     optional leading "_REALTIME_OFFSET" Int64 column of application
//     offsets (realtime.Write.Write). Each batch is acknowledged by a
//     PutResult whose app metadata is PutAck JSON once its rows are
//     queryable; acknowledged rows are durable after the next commit. A
//     rejected batch ends the stream with InvalidArgument and changes
//     nothing; the batches acknowledged before it stay.
//   - DoGet with a Ticket (JSON): kind "union" streams committed files ∪
//     memory as realtime.Scan reads them (columns, where, snapshot); kind
//     "realtime" streams the real-time portion: a header batch without rows
//     whose app metadata (PortionMeta) names the planned snapshot, then the
//     memory rows of each partition-bucket above that snapshot's progress
//     boundary, in the transport schema (Context.TransportSchema), each
//     batch with its PortionMeta (partition, bucket, committed end, memory
//     end). Views are pinned only while the stream runs.
//   - DoAction "lookup" (body: an Arrow IPC stream of primary-key batches;
//     result: an IPC stream of the current rows), "commit" (CommitResult),
//     "progress" (ProgressResult: where a producer replays from after a
//     server restart); ListActions lists them.
//   - GetFlightInfo and GetSchema take a Ticket as the descriptor command.
//
// Memory is bounded (Config.MaxMemoryBytes): a DoPut batch arriving while
// the server holds more first commits what it holds, and is refused with
// ResourceExhausted when that leaves it above the bound.
//
// Malformed tickets, bodies, batches, unknown columns and NULL keys get
// InvalidArgument with a clear text; messages above Config.MaxMessageBytes
// are refused by gRPC; a handler panic becomes Internal and is logged.
//
// # Recovery
//
// Acknowledged rows are queryable, not yet durable; the server keeps them
// through every failure it can survive (Server.Commit): a failed prepare
// leaves them in memory for the next commit, a failed commit of prepared
// rows is published again (a landed one is recognised). Only a commit
// refused for good (another writer committed the same partition-bucket's
// progress) or failing five times in a row makes the server drop what it
// holds: it recreates its context from the latest snapshot under a new
// generation. Producers learn it: every DoPut acknowledgement and the
// "progress" result carry the generation, and a DoPut naming a generation
// that is gone (PutCommand; Client does so) ends with Aborted, as does
// any stream open when the rows were dropped. A restarted server adopts
// the latest snapshot's progress under a new generation too. Either way a
// producer that needs every row replays from the "progress" action's
// committed ends (application offsets make the replay exact).
//
// # Discovery
//
// A serving server records its location in the table folder
// (ServicePath, Service JSON) and removes it at Shutdown. One server
// serves a table: Serve refuses a table whose service file names another
// server that answers (ErrTableServed); a record left by a killed server
// is replaced. A table whose option realtime.provider is "flight" is read
// by OpenUnion in any process: the committed snapshot the server planned
// is read from the store with the caller's reader options, the server's
// portion is merged in by realtime.ReadUnion; ErrProviderUnavailable (or,
// with UnionOptions.Fallback, the committed rows and Union.Fallback) when
// no server answers.
package serve
