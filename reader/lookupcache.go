package reader

import (
	"container/list"
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultLookupCacheBytes is the bound of a LookupCache when the table says
// nothing: 256 MiB of decoded rows, the default of Java's
// lookup.cache-max-memory-size (CoreOptions.LOOKUP_CACHE_MAX_MEMORY_SIZE).
const DefaultLookupCacheBytes = 256 << 20

// LookupCache keeps the data files that point lookups (WithKeys,
// Scan.Lookup) read, decoded, so that looking keys up again does not read
// or decode them: each file is kept as one Arrow batch in the key-value
// layout a merge reads (keys, sequence number, row kind, values), sorted by
// key as the file is, with its deletion vector applied. A lookup then finds
// its keys in each candidate file by binary search, and a hit costs about
// what a miss does. It plays the part of Java's lookup cache
// (LookupLevels with its local lookup files, bounded by
// lookup.cache-max-memory-size), in memory.
//
// Data files are never rewritten (their names carry the writer's UUID), so
// an entry never goes stale: an entry is keyed by the store, the file's
// path, the columns read and the identity of the file's deletion vector
// (index file, offset, length). A new snapshot that deletes rows of a file
// (a new deletion vector) or drops it (compaction) just stops asking for
// the old entry, which ages out. Entries are evicted least recently used
// first so that their bytes (the lengths of the batches' Arrow buffers,
// see LookupCacheStats.Bytes) stay at or below the bound; a file larger
// than a quarter of the bound is read but not kept, so one large file
// cannot flush the others. Concurrent lookups of a file not kept yet share
// one read.
//
// A LookupCache is safe for concurrent use and needs no Close. Reads other
// than point lookups never use it.
type LookupCache struct {
	mu       sync.Mutex
	maxBytes int64
	items    map[string]*list.Element // of *lookupItem, front = most recently used
	order    list.List
	bytes    int64
	loads    map[string]*lookupLoad
	hits     int64
	misses   int64

	// rows of data files offered by their writer, not read yet (Offer)
	offers     map[string]*list.Element // of *lookupOffer, front = newest
	offerOrder list.List
	offerBytes int64
	offerReads int64
}

type lookupItem struct {
	key   string
	rec   arrow.RecordBatch // nil: the file had no rows left
	bytes int64
}

// lookupLoad is a read of one file in progress; done is closed when rec
// and err are set.
type lookupLoad struct {
	done    chan struct{}
	rec     arrow.RecordBatch
	err     error
	waiters int // lookups waiting for this read (guarded by LookupCache.mu)
}

// LookupCacheStats is a snapshot of a LookupCache's counters.
type LookupCacheStats struct {
	// Hits counts file reads served from memory (including reads that
	// waited for another lookup's read of the same file); Misses counts
	// reads that read and decoded the file.
	Hits, Misses int64
	// OfferReads counts the misses that read offered rows (Offer) instead
	// of the file.
	OfferReads int64
	// Files is the number of files kept, Bytes the lengths of their Arrow
	// buffers plus their keys, MaxBytes the bound.
	Files           int
	Bytes, MaxBytes int64
}

// NewLookupCache returns a LookupCache that keeps at most maxBytes bytes of
// decoded data files; maxBytes <= 0 keeps none (lookups read every file).
func NewLookupCache(maxBytes int64) *LookupCache {
	return &LookupCache{maxBytes: max(maxBytes, 0), items: map[string]*list.Element{}, loads: map[string]*lookupLoad{}, offers: map[string]*list.Element{}}
}

// SetMaxBytes changes the bound, evicting least recently used files down
// to it (maxBytes <= 0 empties the cache and keeps nothing more).
func (c *LookupCache) SetMaxBytes(maxBytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maxBytes = max(maxBytes, 0)
	c.evict()
	for c.offerBytes > min(c.maxBytes/4, MaxOfferBytes) {
		c.dropOffer(c.offerOrder.Back())
	}
}

// Stats returns the cache's counters.
func (c *LookupCache) Stats() LookupCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return LookupCacheStats{Hits: c.hits, Misses: c.misses, OfferReads: c.offerReads, Files: len(c.items), Bytes: c.bytes, MaxBytes: c.maxBytes}
}

// enabled reports whether the cache keeps anything.
func (c *LookupCache) enabled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxBytes > 0
}

// file returns the batches of the file key names: the kept batch, or the
// batches of read (all of them, concatenated into one and kept when it
// fits). Each yielded batch is the consumer's to release. sc is the schema
// of the batches read yields.
func (c *LookupCache) file(ctx context.Context, key string, sc *arrow.Schema, read iter.Seq2[arrow.RecordBatch, error]) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		rec, err := c.get(ctx, key, sc, read)
		if err != nil {
			yield(nil, err)
			return
		}
		if rec != nil {
			yield(rec, nil)
		}
	}
}

// get returns the file's batch retained for the caller (nil when it has
// no rows).
func (c *LookupCache) get(ctx context.Context, key string, sc *arrow.Schema, read iter.Seq2[arrow.RecordBatch, error]) (arrow.RecordBatch, error) {
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		it := el.Value.(*lookupItem)
		c.order.MoveToFront(el)
		c.hits++
		if it.rec != nil {
			it.rec.Retain()
		}
		c.mu.Unlock()
		return it.rec, nil
	}
	if ld, ok := c.loads[key]; ok {
		// The loader retains the batch once for each waiter before it
		// closes done, so the loader's caller releasing its own reference
		// cannot free it under a waiter.
		ld.waiters++
		c.mu.Unlock()
		select {
		case <-ld.done:
		case <-ctx.Done():
			go func() {
				<-ld.done
				if ld.rec != nil {
					ld.rec.Release()
				}
			}()
			return nil, fmt.Errorf("reader: lookup cache: %w", ctx.Err())
		}
		if ld.err == nil {
			c.mu.Lock()
			c.hits++
			c.mu.Unlock()
			return ld.rec, nil
		}
		// The shared read failed (perhaps only its caller's context ended):
		// read alone.
		c.mu.Lock()
		c.misses++
		c.mu.Unlock()
		return concatFile(read, sc)
	}
	ld := &lookupLoad{done: make(chan struct{})}
	c.loads[key] = ld
	c.misses++
	c.mu.Unlock()

	rec, err := concatFile(read, sc)
	ld.rec, ld.err = rec, err
	c.mu.Lock()
	delete(c.loads, key)
	if err == nil {
		c.keep(key, rec)
		if rec != nil {
			for range ld.waiters {
				rec.Retain()
			}
		}
	}
	c.mu.Unlock()
	close(ld.done)
	return rec, err
}

// keep adds rec (retaining it) when it fits and evicts down to the bound.
// c.mu is held.
func (c *LookupCache) keep(key string, rec arrow.RecordBatch) {
	n := int64(len(key)) + lookupItemOverhead
	if rec != nil {
		n += recordBytes(rec)
	}
	if c.maxBytes <= 0 || n > c.maxBytes/4 {
		return
	}
	if rec != nil {
		rec.Retain()
	}
	c.items[key] = c.order.PushFront(&lookupItem{key: key, rec: rec, bytes: n})
	c.bytes += n
	c.evict()
}

// evict drops least recently used files until the bytes kept fit the
// bound. c.mu is held.
func (c *LookupCache) evict() {
	for c.bytes > c.maxBytes && c.order.Len() > 0 {
		el := c.order.Back()
		it := el.Value.(*lookupItem)
		c.order.Remove(el)
		delete(c.items, it.key)
		c.bytes -= it.bytes
		if it.rec != nil {
			it.rec.Release()
		}
	}
}

// lookupItemOverhead approximates the bookkeeping of one kept file (list
// element, map slot, lookupItem, batch headers) besides its key and
// buffers.
const lookupItemOverhead = 256

// concatFile reads every batch of read into one batch of schema sc (nil
// when there are no rows).
func concatFile(read iter.Seq2[arrow.RecordBatch, error], sc *arrow.Schema) (arrow.RecordBatch, error) {
	rec, err := Concat(read, sc, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	if rec.NumRows() == 0 {
		rec.Release()
		return nil, nil
	}
	return rec, nil
}

// recordBytes is the total length of the Arrow buffers rec references.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, ch := range d.Children() {
		n += dataBytes(ch)
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n += dataBytes(dict)
	}
	return n
}

// lookupKey names one file read for the cache: the store, the file, the
// schema it is read with and the columns read (ids, names, types, those
// left null) and the deletion vector applied.
func lookupKey(scope, filePath string, schemaID int64, target []string, nullCols map[int]bool, dv string) string {
	var b strings.Builder
	b.WriteString(scope)
	b.WriteByte(0)
	b.WriteString(filePath)
	b.WriteByte(0)
	b.WriteString(strconv.FormatInt(schemaID, 10))
	b.WriteByte(0)
	for _, t := range target {
		b.WriteString(t)
		b.WriteByte(',')
	}
	b.WriteByte(0)
	ids := make([]int, 0, len(nullCols))
	for id, ok := range nullCols {
		if ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		b.WriteString(strconv.Itoa(id))
		b.WriteByte(',')
	}
	b.WriteByte(0)
	b.WriteString(dv)
	return b.String()
}
