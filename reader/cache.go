package reader

import "github.com/paimon-go/paimon/manifest"

// DefaultCacheBytes is the bound of the Cache paimon.Table keeps per open
// table: 64 MiB of decoded manifest entries (manifest.DefaultCacheBytes).
const DefaultCacheBytes = manifest.DefaultCacheBytes

// Cache is what the scans of a table share across Plan calls in one
// process, so that planning a table again reads only the metadata files it
// has not seen: the decoded manifest lists, manifests and index manifests
// (by file name, in a manifest.Cache bounded by approximate decoded bytes,
// least recently used first out) and the Avro decoders compiled per writer
// schema. It mirrors the manifest caches of Java's CachingCatalog
// (ObjectsCache / SegmentsCache behind ManifestFile and ManifestList).
// Point lookups (WithKeys, Scan.Lookup) also keep the data files they read,
// decoded, in its LookupCache (DefaultLookupCacheBytes unless
// LookupFiles().SetMaxBytes says otherwise).
//
// A Cache is safe for concurrent use and may be shared by several tables;
// paimon.Table holds one per open table and passes it to every scan. Scans
// without WithCache use a fresh cache per Plan call that keeps only the
// compiled decoders.
type Cache struct {
	manifests *manifest.Cache
	lookup    *LookupCache
	indexes   *indexFiles // separate file index files (up to 16 MiB)
	live      *liveSets   // live files of the last snapshot planned, per branch (delta planning)
}

// NewCache returns a Cache that keeps at most maxBytes bytes of decoded
// manifest entries (see manifest.Cache for how they are counted); maxBytes
// <= 0 keeps only the compiled decoders. Its LookupCache keeps up to
// DefaultLookupCacheBytes.
func NewCache(maxBytes int64) *Cache {
	return &Cache{manifests: manifest.NewCache(maxBytes), lookup: NewLookupCache(DefaultLookupCacheBytes), indexes: newIndexFiles(defaultIndexFileBytes), live: newLiveSets()}
}

// LookupFiles returns the cache of data files decoded for point lookups,
// for its statistics and bound.
func (c *Cache) LookupFiles() *LookupCache { return c.lookup }

// Manifests returns the cache of decoded manifest files, for its statistics
// (manifest.Cache.Stats) or for other readers of the same table's
// manifests.
func (c *Cache) Manifests() *manifest.Cache { return c.manifests }

// WithCache makes the scan read manifest files through c (see Cache). A nil
// c is the same as no WithCache.
func WithCache(c *Cache) Option { return func(cfg *config) { cfg.cache = c } }
