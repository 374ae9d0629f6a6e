package reader

import "github.com/paimon-go/paimon/snapshot"

// SetSnapshotPicked sets the function planBranch calls with the snapshot it
// picked, before reading its manifests (nil: none), and returns a function
// that restores the one before.
func SetSnapshotPicked(f func(*snapshot.Snapshot)) (restore func()) {
	old := snapshotPicked
	snapshotPicked = f
	return func() { snapshotPicked = old }
}
