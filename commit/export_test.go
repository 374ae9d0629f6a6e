package commit

// SetBeforeCreate makes c call f right before it creates a snapshot file.
func SetBeforeCreate(c *Committer, f func()) { c.beforeCreate = f }

// SetBeforeBaseLists makes c call f right before it reads the manifest
// lists of a base snapshot.
func SetBeforeBaseLists(c *Committer, f func()) { c.beforeBaseLists = f }

// LiveIndexHits returns how many times c's checks took the live files of
// their base from its liveIndex.
func LiveIndexHits(c *Committer) int {
	c.live.mu.Lock()
	defer c.live.mu.Unlock()
	return c.live.hits
}
