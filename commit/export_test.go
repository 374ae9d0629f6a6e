package commit

// SetBeforeCreate makes c call f right before it creates a snapshot file.
func SetBeforeCreate(c *Committer, f func()) { c.beforeCreate = f }
