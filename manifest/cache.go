package manifest

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"unsafe"
)

// DefaultCacheBytes is the bound NewCache callers use when they have no better one: 64 MiB of
// decoded entries. Java's catalog manifest cache (cache.manifest.small-file-memory) defaults to
// 128 MiB of serialized rows; decoded Go entries are larger per row, and a process usually
// caches one table per Cache.
const DefaultCacheBytes = 64 << 20

// Cache keeps decoded manifest lists, manifests and index manifests in memory so that
// planning the same table again reads and decodes only the files it has not seen (Java's
// ObjectsCache / SegmentsCache behind ManifestFile and ManifestList). Those files are never
// rewritten: their names carry the writer's UUID and a counter, so a name read once stands
// for the same content for ever, and entries never need invalidation.
//
// Files are keyed by kind, the file system (its URL() when fs has that method, as
// *fileio.FileIO does) and name, and evicted least recently used first so that the
// approximate size of the decoded values kept (struct sizes plus the bytes of the slices and
// strings they hold; see CacheStats.Bytes) stays at or below the bound given to NewCache. A
// file whose decoded size exceeds a quarter of the bound is decoded but not kept, so one large
// manifest cannot flush everything else (Java caches only files up to
// cache.manifest.small-file-threshold). Besides the files, a Cache keeps the decoders compiled
// per writer schema and one zstd decoder, as Reader does.
//
// Concurrent reads of a file that is not cached yet are served by one read and decode. A
// Cache is safe for concurrent use, needs no Close (it holds no goroutines or file handles)
// and may be shared by any number of tables.
//
// The slices a Cache returns are shared with the cache and with every other caller: callers
// must not modify them or anything they reference (copying an element and changing its
// top-level fields is fine).
type Cache struct {
	maxBytes int64
	codec    codec

	mu     sync.Mutex
	items  map[string]*list.Element // of *cacheItem, front = most recently used
	order  list.List
	bytes  int64
	loads  map[string]*cacheLoad
	hits   int64
	misses int64

	// Offered content (Offer), by scope and name; offerOrder is oldest first.
	offered      map[string]*list.Element // of *offer
	offerOrder   list.List
	offeredBytes int64
}

// offer is the content of one offered file (Offer).
type offer struct {
	key  string
	data []byte
}

type cacheItem struct {
	key   string
	value any
	bytes int64
}

// cacheLoad is a read of one file in progress; done is closed when value/err are set.
type cacheLoad struct {
	done  chan struct{}
	value any
	err   error
}

// CacheStats is a snapshot of a Cache's counters.
type CacheStats struct {
	// Hits counts reads served from memory (including reads that waited for another
	// caller's read of the same file); Misses counts reads that read and decoded the file.
	Hits, Misses int64
	// Files is the number of files kept; Bytes their approximate size in bytes (decoded
	// values, keys and per-file bookkeeping); MaxBytes the bound given to NewCache.
	Files           int
	Bytes, MaxBytes int64
}

// NewCache returns a Cache that keeps at most maxBytes bytes of decoded entries (see Cache for
// how they are counted). maxBytes <= 0 keeps no decoded files: the Cache then only shares the
// compiled writer-schema decoders and the zstd decoder between reads, like a Reader.
func NewCache(maxBytes int64) *Cache {
	return &Cache{maxBytes: max(maxBytes, 0), items: map[string]*list.Element{}, loads: map[string]*cacheLoad{}, offered: map[string]*list.Element{}}
}

// maxOfferedBytes bounds the content Offer keeps: a sixteenth of the Cache's bound, at most
// 4 MiB (a commit's manifests and lists are a few KiB to a few hundred).
func (c *Cache) maxOfferedBytes() int64 { return min(c.maxBytes/16, 4<<20) }

// Offer gives c the content of manifest/<name>, a manifest, manifest list or index manifest
// of the table whose root is fs that the caller has just written (a committer offers what it
// published): the first read of that file through c decodes data instead of reading it from
// the store, and is counted as a miss. The files are immutable (see Cache), so the content
// stays valid; data is kept, not copied, until that read or until newer offers push it out
// (oldest first, beyond a sixteenth of the Cache's bound or 4 MiB). A Cache with a bound <= 0
// keeps nothing. The caller must not modify data afterwards. There is no Java counterpart:
// Java's caches fill on reads only.
func (c *Cache) Offer(fs FileReader, name string, data []byte) {
	n := int64(len(data))
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.maxOfferedBytes() {
		return
	}
	key := cacheScope(fs) + "\x00" + name
	c.dropOffered(key)
	c.offered[key] = c.offerOrder.PushBack(&offer{key: key, data: data})
	c.offeredBytes += n
	for c.offeredBytes > c.maxOfferedBytes() {
		c.dropOffered(c.offerOrder.Front().Value.(*offer).key)
	}
}

// takeOffered returns and forgets the offered content of key (scope and name), if any.
// c.mu is held.
func (c *Cache) takeOffered(key string) ([]byte, bool) {
	el, ok := c.offered[key]
	if !ok {
		return nil, false
	}
	data := el.Value.(*offer).data
	c.dropOffered(key)
	return data, true
}

// dropOffered forgets the offered content of key, if any. c.mu is held.
func (c *Cache) dropOffered(key string) {
	if el, ok := c.offered[key]; ok {
		c.offeredBytes -= int64(len(el.Value.(*offer).data))
		c.offerOrder.Remove(el)
		delete(c.offered, key)
	}
}

// Stats returns the Cache's counters.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits, Misses: c.misses, Files: c.order.Len(), Bytes: c.bytes, MaxBytes: c.maxBytes}
}

// ManifestList returns the rows of manifest/<name>, a manifest list of the table whose root is
// fs, from memory or by reading it as ReadManifestList does. Errors are those of
// ReadManifestList; they are not cached.
func (c *Cache) ManifestList(ctx context.Context, fs FileReader, name string) ([]FileMeta, error) {
	return cached(ctx, c, fs, "manifest list", name, func(data []byte) ([]FileMeta, error) {
		return decodeFile(&c.codec, data, name, listTable, listFromArrow)
	}, metasSize)
}

// Manifest returns the entries of manifest/<name>, a manifest file of the table whose root is
// fs, from memory or by reading it as ReadManifest does. Errors are those of ReadManifest;
// they are not cached.
func (c *Cache) Manifest(ctx context.Context, fs FileReader, name string) ([]Entry, error) {
	return cached(ctx, c, fs, "manifest", name, func(data []byte) ([]Entry, error) {
		return decodeFile(&c.codec, data, name, entryTable, entriesFromArrow)
	}, entriesSize)
}

// IndexManifest returns the entries of manifest/<name>, an index manifest of the table whose
// root is fs, from memory or by reading it as ReadIndexManifest does. Errors are those of
// ReadIndexManifest; they are not cached.
func (c *Cache) IndexManifest(ctx context.Context, fs FileReader, name string) ([]IndexManifestEntry, error) {
	return cached(ctx, c, fs, "index manifest", name, func(data []byte) ([]IndexManifestEntry, error) {
		return decodeFile(&c.codec, data, name, indexTable, indexFromArrow)
	}, indexSize)
}

// cacheScope names the file system of fs in cache keys.
func cacheScope(fs FileReader) string {
	if u, ok := fs.(interface{ URL() string }); ok {
		return u.URL()
	}
	return fmt.Sprintf("%T@%p", fs, fs)
}

// cached returns the decoded file name of the given kind: from memory, by waiting for a read
// of it in progress, or by reading and decoding it (and keeping the result when it fits).
func cached[T any](ctx context.Context, c *Cache, fs FileReader, kind, name string,
	decode func([]byte) ([]T, error), size func([]T) int64) ([]T, error) {
	scoped := cacheScope(fs) + "\x00" + name
	key := kind + "\x00" + scoped
	read := func() ([]T, error) {
		c.mu.Lock()
		data, ok := c.takeOffered(scoped)
		c.mu.Unlock()
		if ok {
			return decode(data)
		}
		data, err := fs.ReadFile(ctx, Path(name))
		if err != nil {
			return nil, fmt.Errorf("manifest: read %s %s: %w", kind, name, err)
		}
		return decode(data)
	}
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		if v, ok := el.Value.(*cacheItem).value.([]T); ok {
			c.order.MoveToFront(el)
			c.hits++
			c.mu.Unlock()
			return v, nil
		}
	}
	if ld, ok := c.loads[key]; ok {
		c.mu.Unlock()
		select {
		case <-ld.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("manifest: read %s %s: %w", kind, name, ctx.Err())
		}
		if v, ok := ld.value.([]T); ok && ld.err == nil {
			c.mu.Lock()
			c.hits++
			c.mu.Unlock()
			return v, nil
		}
		// The shared read failed (perhaps only its caller's context ended): read alone.
		c.mu.Lock()
		c.misses++
		c.mu.Unlock()
		return read()
	}
	ld := &cacheLoad{done: make(chan struct{})}
	c.loads[key] = ld
	c.misses++
	c.mu.Unlock()

	v, err := read()
	ld.value, ld.err = v, err
	c.mu.Lock()
	delete(c.loads, key)
	if err == nil {
		c.keep(key, v, size(v))
	}
	c.mu.Unlock()
	close(ld.done)
	return v, err
}

// keep adds a decoded file of n bytes and evicts least recently used files down to the
// bound. c.mu is held.
func (c *Cache) keep(key string, v any, n int64) {
	n += int64(len(key)) + cacheItemOverhead
	if c.maxBytes <= 0 || n > c.maxBytes/4 {
		return
	}
	if el, ok := c.items[key]; ok {
		it := el.Value.(*cacheItem)
		c.bytes -= it.bytes
		it.value, it.bytes = v, n
		c.bytes += n
		c.order.MoveToFront(el)
	} else {
		c.items[key] = c.order.PushFront(&cacheItem{key: key, value: v, bytes: n})
		c.bytes += n
	}
	for c.bytes > c.maxBytes {
		el := c.order.Back()
		it := el.Value.(*cacheItem)
		c.order.Remove(el)
		delete(c.items, it.key)
		c.bytes -= it.bytes
	}
}

// cacheItemOverhead approximates the bookkeeping of one kept file (list element, map slot,
// cacheItem) besides its key and value.
const cacheItemOverhead = 128

// Approximate heap sizes of decoded values: the structs themselves (whole slice capacity)
// plus the bytes their slices, strings and pointers reference.
const (
	sizeEntry      = int64(unsafe.Sizeof(Entry{}))
	sizeFileMeta   = int64(unsafe.Sizeof(FileMeta{}))
	sizeIndexEntry = int64(unsafe.Sizeof(IndexManifestEntry{}))
	sizeDVMeta     = int64(unsafe.Sizeof(DeletionVectorMeta{}))
	sizeGlobalMeta = int64(unsafe.Sizeof(GlobalIndexMeta{}))
	sizeString     = int64(unsafe.Sizeof(""))
	sizeWord       = 8 // a pointed-to int64, int32 or FileSource
)

func statsSize(s *SimpleStats) int64 {
	return int64(len(s.MinValues) + len(s.MaxValues) + 8*len(s.NullCounts))
}

func stringsSize(ss []string) int64 {
	n := int64(len(ss)) * sizeString
	for _, x := range ss {
		n += int64(len(x))
	}
	return n
}

func ptrSize[T any](p *T) int64 {
	if p == nil {
		return 0
	}
	return sizeWord
}

func fileSize(f *DataFileMeta) int64 {
	n := int64(len(f.FileName)+len(f.MinKey)+len(f.MaxKey)+len(f.EmbeddedIndex)) +
		statsSize(&f.KeyStats) + statsSize(&f.ValueStats) +
		stringsSize(f.ExtraFiles) + stringsSize(f.ValueStatsCols) + stringsSize(f.WriteCols) +
		8*int64(len(f.WriteColsSequences)) +
		ptrSize(f.CreationTime) + ptrSize(f.DeleteRowCount) + ptrSize(f.FileSource) + ptrSize(f.FirstRowID)
	if f.ExternalPath != nil {
		n += sizeString + int64(len(*f.ExternalPath))
	}
	return n
}

func entriesSize(es []Entry) int64 {
	n := int64(cap(es)) * sizeEntry
	for i := range es {
		n += int64(len(es[i].Partition)) + fileSize(&es[i].File)
	}
	return n
}

func metasSize(ms []FileMeta) int64 {
	n := int64(cap(ms)) * sizeFileMeta
	for i := range ms {
		m := &ms[i]
		n += int64(len(m.FileName)) + statsSize(&m.PartitionStats) +
			ptrSize(m.MinBucket) + ptrSize(m.MaxBucket) + ptrSize(m.MinLevel) + ptrSize(m.MaxLevel) +
			ptrSize(m.MinRowID) + ptrSize(m.MaxRowID)
	}
	return n
}

func indexSize(es []IndexManifestEntry) int64 {
	n := int64(cap(es)) * sizeIndexEntry
	for i := range es {
		e := &es[i]
		f := &e.IndexFile
		n += int64(len(e.Partition)+len(f.IndexType)+len(f.FileName)) + int64(cap(f.DVRanges))*sizeDVMeta
		for _, r := range f.DVRanges {
			n += int64(len(r.DataFileName)) + ptrSize(r.Cardinality)
		}
		if f.ExternalPath != nil {
			n += sizeString + int64(len(*f.ExternalPath))
		}
		if g := f.GlobalIndex; g != nil {
			n += sizeGlobalMeta + 4*int64(len(g.ExtraFieldIDs)) + int64(len(g.IndexMeta)+len(g.SourceMeta))
		}
	}
	return n
}
