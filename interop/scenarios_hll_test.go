//go:build interop

package interop

import "testing"

// TestJavaHllScenarioCompactedByGo runs the Java scenario scenario_agg_hll
// (hll_sketch written and compacted by Java), fully compacts it with our
// compaction, so that our merged HLL bytes are written, and requires our
// read and Java's read of the result to equal Java's read before our
// compaction.
func TestJavaHllScenarioCompactedByGo(t *testing.T) {
	compactJavaScenarioWithGo(t, "scenario_agg_hll")
}
