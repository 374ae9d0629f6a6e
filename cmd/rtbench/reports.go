package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/paimon-go/paimon/metrics"
)

// reportCounts counts the metrics reports of --metrics by operation, for
// the line rtbench prints at the end.
type reportCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *reportCounts) Report(_ context.Context, r metrics.Report) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[r.Operation()]++
	c.mu.Unlock()
}

// String lists the counts as "3 commit, 10 scan reports".
func (c *reportCounts) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for op, n := range c.n {
		parts = append(parts, fmt.Sprintf("%d %s", n, op))
	}
	slices.Sort(parts)
	if len(parts) == 0 {
		return "no reports"
	}
	return strings.Join(parts, ", ") + " reports"
}
