package fileio

import "sync/atomic"

// Stats counts store requests by kind. Each attempt of a retried operation
// counts; one page of a listing is one List request. The counts are of the
// requests fileio asks the driver for, which is one HTTP request each on S3
// and GCS except where noted on the method (Delete on S3 is a HEAD plus a
// DELETE and counts as both; a streaming Create larger than the 5 MiB
// multipart threshold counts as one Put).
type Stats struct {
	Get    int64 // reads: whole-file, ranged and File reads
	Put    int64 // writes: WriteFile, Create, CreateIfAbsent
	List   int64 // listing pages
	Delete int64 // deletes
	Head   int64 // metadata requests: Exists, Size, past-EOF range checks
}

// Total returns the sum of all request counts.
func (s Stats) Total() int64 { return s.Get + s.Put + s.List + s.Delete + s.Head }

// Since returns the requests made after before was taken: s minus before,
// field by field.
func (s Stats) Since(before Stats) Stats {
	return Stats{
		Get:    s.Get - before.Get,
		Put:    s.Put - before.Put,
		List:   s.List - before.List,
		Delete: s.Delete - before.Delete,
		Head:   s.Head - before.Head,
	}
}

type opKind int

const (
	opGet opKind = iota
	opPut
	opList
	opDelete
	opHead
	numOpKinds
)

// counters holds the live request counts of one opened store.
type counters [numOpKinds]atomic.Int64

func (c *counters) add(k opKind) { c[k].Add(1) }

func (c *counters) snapshot() Stats {
	return Stats{
		Get:    c[opGet].Load(),
		Put:    c[opPut].Load(),
		List:   c[opList].Load(),
		Delete: c[opDelete].Load(),
		Head:   c[opHead].Load(),
	}
}
