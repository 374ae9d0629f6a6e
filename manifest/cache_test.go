package manifest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

// countingFS is an in-memory FileReader that counts reads per path and can fail them.
type countingFS struct {
	files map[string][]byte
	reads sync.Map // path -> *atomic.Int64
	fail  atomic.Bool
}

func (c *countingFS) ReadFile(_ context.Context, path string) ([]byte, error) {
	n, _ := c.reads.LoadOrStore(path, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	if c.fail.Load() {
		return nil, fs.ErrPermission
	}
	if b, ok := c.files[path]; ok {
		return b, nil
	}
	return nil, fs.ErrNotExist
}

func (c *countingFS) readsOf(name string) int64 {
	n, ok := c.reads.Load(Path(name))
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

// syntheticManifests returns n manifests named manifest-<letter>-0 with identical entries, so
// they decode to values of identical size.
func syntheticManifests(t *testing.T, n int) (*countingFS, []string) {
	t.Helper()
	data, err := EncodeManifest([]Entry{sampleEntry(), sampleEntry()}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfs := &countingFS{files: map[string][]byte{}}
	var names []string
	for i := range n {
		name := "manifest-" + string(rune('a'+i)) + "-0"
		cfs.files[Path(name)] = data
		names = append(names, name)
	}
	return cfs, names
}

func mustStats(t *testing.T, c *Cache, want CacheStats) {
	t.Helper()
	got := c.Stats()
	got.Bytes, want.Bytes = 0, 0
	if got != want {
		t.Fatalf("stats = %+v, want %+v", got, want)
	}
}

// TestCacheMatchesDecode reads every manifest-directory file of every fixture twice through
// one Cache from several goroutines: each result equals the uncached decoder's, every file is
// read once, and the second round is served from memory.
func TestCacheMatchesDecode(t *testing.T) {
	ctx := context.Background()
	c := NewCache(DefaultCacheBytes)
	total := 0
	for _, table := range fixtureTables {
		fsys := openTable(t, table)
		paths, _ := filepath.Glob(filepath.Join(fixtures, table, "manifest", "*"))
		total += len(paths)
		for round := range 2 {
			var wg sync.WaitGroup
			errs := make(chan error, len(paths))
			for _, p := range paths {
				wg.Go(func() {
					name := filepath.Base(p)
					data, err := os.ReadFile(p)
					if err != nil {
						errs <- err
						return
					}
					want, err := decodeAny(kindOf(name), data, name)
					if err != nil {
						errs <- err
						return
					}
					var got any
					switch kindOf(name) {
					case "list":
						got, err = c.ManifestList(ctx, fsys, name)
					case "index":
						got, err = c.IndexManifest(ctx, fsys, name)
					default:
						got, err = c.Manifest(ctx, fsys, name)
					}
					if err == nil && !reflect.DeepEqual(got, want) {
						err = errors.New(name + ": cached result differs (round " + string(rune('0'+round)) + ")")
					}
					if err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		}
	}
	mustStats(t, c, CacheStats{Hits: int64(total), Misses: int64(total), Files: total, MaxBytes: DefaultCacheBytes})
	if st := c.Stats(); st.Bytes <= 0 || st.Bytes > DefaultCacheBytes {
		t.Fatalf("bytes = %d", st.Bytes)
	}
}

// TestCacheOneReadForConcurrentCallers: 16 goroutines asking for one file read it once.
func TestCacheOneReadForConcurrentCallers(t *testing.T) {
	cfs, names := syntheticManifests(t, 1)
	c := NewCache(DefaultCacheBytes)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			es, err := c.Manifest(context.Background(), cfs, names[0])
			if err != nil || len(es) != 2 || es[1].File.FileName != "data-1.parquet" {
				t.Errorf("entries %+v, err %v", es, err)
			}
		})
	}
	wg.Wait()
	if n := cfs.readsOf(names[0]); n != 1 {
		t.Fatalf("file read %d times, want 1", n)
	}
	mustStats(t, c, CacheStats{Hits: 15, Misses: 1, Files: 1, MaxBytes: DefaultCacheBytes})
}

// TestCacheEvictsLeastRecentlyUsed: with room for exactly four equal files, reading a fifth
// evicts the one used longest ago.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := context.Background()
	cfs, names := syntheticManifests(t, 6)
	probe := NewCache(DefaultCacheBytes)
	if _, err := probe.Manifest(ctx, cfs, names[0]); err != nil {
		t.Fatal(err)
	}
	size := probe.Stats().Bytes // every file has this size (same entries, same name length)

	c := NewCache(4 * size)
	read := func(i int) {
		t.Helper()
		if _, err := c.Manifest(ctx, cfs, names[i]); err != nil {
			t.Fatal(err)
		}
	}
	before := func(i int) int64 { return cfs.readsOf(names[i]) }
	for i := range 4 {
		read(i) // a b c d, all kept
	}
	if st := c.Stats(); st.Files != 4 || st.Bytes != 4*size {
		t.Fatalf("after 4 files: %+v, want 4 files of %d bytes", st, size)
	}
	read(0) // hit; LRU order now b c d a
	read(4) // miss; evicts b
	nb, nc := before(1), before(2)
	read(2) // hit
	if before(2) != nc {
		t.Fatal("c was evicted")
	}
	read(1) // miss: b was evicted; order c e a d, so d goes
	if before(1) != nb+1 {
		t.Fatalf("b read %d times after eviction, want %d", before(1), nb+1)
	}
	nd := before(3)
	read(3) // miss: d was evicted
	if before(3) != nd+1 {
		t.Fatal("d was not evicted")
	}
	mustStats(t, c, CacheStats{Hits: 2, Misses: 7, Files: 4, MaxBytes: 4 * size})
	if st := c.Stats(); st.Bytes != 4*size {
		t.Fatalf("bytes = %d, want %d", st.Bytes, 4*size)
	}
}

// TestCacheSkipsLargeFiles: a file over a quarter of the bound, and every file with a bound of
// 0, is decoded but not kept.
func TestCacheSkipsLargeFiles(t *testing.T) {
	ctx := context.Background()
	cfs, names := syntheticManifests(t, 1)
	probe := NewCache(DefaultCacheBytes)
	if _, err := probe.Manifest(ctx, cfs, names[0]); err != nil {
		t.Fatal(err)
	}
	size := probe.Stats().Bytes
	for _, bound := range []int64{4*size - 1, 0, -1} {
		c := NewCache(bound)
		for range 2 {
			if es, err := c.Manifest(ctx, cfs, names[0]); err != nil || len(es) != 2 {
				t.Fatalf("bound %d: %d entries, err %v", bound, len(es), err)
			}
		}
		mustStats(t, c, CacheStats{Misses: 2, MaxBytes: max(bound, 0)})
	}
	c := NewCache(4 * size)
	for range 2 {
		if _, err := c.Manifest(ctx, cfs, names[0]); err != nil {
			t.Fatal(err)
		}
	}
	mustStats(t, c, CacheStats{Hits: 1, Misses: 1, Files: 1, MaxBytes: 4 * size})
}

// TestCacheErrorsNotCached: a failed read is reported with the file system's error and the
// next read tries again; a missing file wraps fs.ErrNotExist.
func TestCacheErrorsNotCached(t *testing.T) {
	ctx := context.Background()
	cfs, names := syntheticManifests(t, 1)
	c := NewCache(DefaultCacheBytes)
	cfs.fail.Store(true)
	if _, err := c.Manifest(ctx, cfs, names[0]); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("failing read: err = %v, want ErrPermission", err)
	}
	cfs.fail.Store(false)
	if es, err := c.Manifest(ctx, cfs, names[0]); err != nil || len(es) != 2 {
		t.Fatalf("retry: %d entries, err %v", len(es), err)
	}
	if _, err := c.ManifestList(ctx, cfs, "manifest-list-missing-0"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing list: err = %v, want ErrNotExist", err)
	}
	// A manifest list decoded from bytes that are not Avro is corrupt, and not kept.
	cfs.files[Path("manifest-list-bad-0")] = []byte("not a manifest list")
	for range 2 {
		if _, err := c.ManifestList(ctx, cfs, "manifest-list-bad-0"); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("bad list: err = %v, want ErrCorrupt", err)
		}
	}
	mustStats(t, c, CacheStats{Misses: 5, Files: 1, MaxBytes: DefaultCacheBytes})
}

// TestCacheSeparatesFileSystems: equal names on two file systems are distinct files.
func TestCacheSeparatesFileSystems(t *testing.T) {
	ctx := context.Background()
	a, names := syntheticManifests(t, 1)
	other := sampleEntry()
	other.File.FileName = "data-2.parquet"
	data, err := EncodeManifest([]Entry{other}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := &countingFS{files: map[string][]byte{Path(names[0]): data}}
	c := NewCache(DefaultCacheBytes)
	ea, err := c.Manifest(ctx, a, names[0])
	if err != nil {
		t.Fatal(err)
	}
	eb, err := c.Manifest(ctx, b, names[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(ea) != 2 || len(eb) != 1 || eb[0].File.FileName != "data-2.parquet" {
		t.Fatalf("a: %d entries, b: %+v", len(ea), eb)
	}
}

// TestCacheWaitsForCancelledContext: a caller waiting for another caller's read returns when
// its own context ends.
func TestCacheWaitsForCancelledContext(t *testing.T) {
	cfs, names := syntheticManifests(t, 1)
	block := make(chan struct{})
	slow := &blockingFS{inner: cfs, block: block}
	c := NewCache(DefaultCacheBytes)
	done := make(chan error, 1)
	go func() {
		_, err := c.Manifest(context.Background(), slow, names[0])
		done <- err
	}()
	<-slow.started()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Manifest(ctx, slow, names[0]); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting caller: err = %v, want context.Canceled", err)
	}
	close(block)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// blockingFS blocks every read until block is closed.
type blockingFS struct {
	inner   FileReader
	block   chan struct{}
	once    sync.Once
	startCh chan struct{}
	mu      sync.Mutex
}

func (b *blockingFS) started() chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.startCh == nil {
		b.startCh = make(chan struct{})
	}
	return b.startCh
}

func (b *blockingFS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	ch := b.started()
	b.once.Do(func() { close(ch) })
	<-b.block
	return b.inner.ReadFile(ctx, path)
}

// TestCacheOffer: an offered file is decoded from the offered bytes on its first read (no read
// of the store, a miss), then served from memory; it is offered per file system; offers beyond
// the bound push out the oldest, and a Cache without a bound keeps none.
func TestCacheOffer(t *testing.T) {
	ctx := context.Background()
	cfs, names := syntheticManifests(t, 3)
	data := cfs.files[Path(names[0])]
	want, err := decodeAny("manifest", data, names[0])
	if err != nil {
		t.Fatal(err)
	}
	c := NewCache(DefaultCacheBytes)
	c.Offer(cfs, names[0], data)
	for round := range 2 {
		got, err := c.Manifest(ctx, cfs, names[0])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: offered manifest decodes to %+v, want %+v", round, got, want)
		}
	}
	if n := cfs.readsOf(names[0]); n != 0 {
		t.Fatalf("offered file read %d times from the store, want 0", n)
	}
	mustStats(t, c, CacheStats{Hits: 1, Misses: 1, Files: 1, MaxBytes: DefaultCacheBytes})

	// Another file system with the same name reads its own file.
	other := &countingFS{files: cfs.files}
	c.Offer(cfs, names[1], data)
	if _, err := c.Manifest(ctx, other, names[1]); err != nil {
		t.Fatal(err)
	}
	if n := other.readsOf(names[1]); n != 1 {
		t.Fatalf("other file system: %d reads, want 1", n)
	}
	// The offer of names[1] on cfs still stands.
	if _, err := c.Manifest(ctx, cfs, names[1]); err != nil || cfs.readsOf(names[1]) != 0 {
		t.Fatalf("offered names[1]: err %v, %d reads, want 0", err, cfs.readsOf(names[1]))
	}

	// A bound of 16 offered copies of data: the 17th pushes out the first.
	per := int64(len(data))
	small := NewCache(16 * 16 * per) // maxOfferedBytes = 16 * per
	for i := range 17 {
		small.Offer(cfs, "manifest-x-"+string(rune('a'+i)), data)
	}
	if _, ok := small.offered[cacheScope(cfs)+"\x00manifest-x-a"]; ok {
		t.Fatal("the oldest offer outlived the bound")
	}
	if len(small.offered) != 16 || small.offeredBytes != 16*per || small.offerOrder.Len() != 16 {
		t.Fatalf("after 17 offers: %d kept, %d bytes, %d in order; want 16, %d, 16", len(small.offered), small.offeredBytes, small.offerOrder.Len(), 16*per)
	}
	// No bound: nothing kept, reads go to the store.
	none := NewCache(0)
	none.Offer(cfs, names[2], data)
	if _, err := none.Manifest(ctx, cfs, names[2]); err != nil || cfs.readsOf(names[2]) != 1 {
		t.Fatalf("unbounded cache: err %v, %d reads, want 1", err, cfs.readsOf(names[2]))
	}
}
