//go:build interop

package interop

import "testing"

// TestJavaSketchScenarioCompactedByGo runs the Java scenario
// scenario_agg_sketches (rbm64 and theta_sketch written and compacted by
// Java), fully compacts it with our compaction, so that our merged bytes
// are written, and requires our read and Java's read of the result to equal
// Java's read before our compaction.
func TestJavaSketchScenarioCompactedByGo(t *testing.T) {
	compactJavaScenarioWithGo(t, "scenario_agg_sketches")
}
