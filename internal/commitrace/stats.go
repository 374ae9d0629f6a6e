package commitrace

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Stats summarizes the latency of a race's commit calls.
type Stats struct {
	Commits int `json:"commits"`
	// GaveUp counts calls that failed (starved commits: retries exhausted,
	// deadline, or any other error).
	GaveUp int `json:"gave_up"`
	// Percentiles of the acknowledged calls' latency (nearest rank).
	P50 time.Duration `json:"p50"`
	P90 time.Duration `json:"p90"`
	P99 time.Duration `json:"p99"`
	Max time.Duration `json:"max"`
	// Wall is the time from the first invocation to the last return;
	// Throughput is acknowledged commits per second of Wall.
	Wall       time.Duration `json:"wall"`
	Throughput float64       `json:"throughput"`
	// Retries is the histogram of lost races per call: Retries[i] calls lost
	// a number of races in bucket i of RetryBuckets.
	Retries    []int `json:"retries"`
	MaxRetries int   `json:"max_retries"`
}

// RetryBuckets are the upper bounds (inclusive) of the Stats.Retries
// buckets; the last bucket holds everything above the previous bound.
var RetryBuckets = []int{0, 1, 2, 4, 8, 16, 32, 1 << 30}

// Summarize computes Stats over recs.
func Summarize(recs []Record) Stats {
	s := Stats{Commits: len(recs), Retries: make([]int, len(RetryBuckets))}
	var lat []time.Duration
	first, last := int64(0), int64(0)
	for i, r := range recs {
		if i == 0 || r.Invoke < first {
			first = r.Invoke
		}
		last = max(last, r.Return)
		if r.Err != "" {
			s.GaveUp++
		} else {
			lat = append(lat, r.Latency())
		}
		for b, ub := range RetryBuckets {
			if r.Retries <= ub {
				s.Retries[b]++
				break
			}
		}
		s.MaxRetries = max(s.MaxRetries, r.Retries)
	}
	slices.Sort(lat)
	pct := func(p int) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		// nearest rank: the smallest value with at least p% at or below it
		i := (len(lat)*p + 99) / 100
		return lat[max(0, min(len(lat)-1, i-1))]
	}
	s.P50, s.P90, s.P99 = pct(50), pct(90), pct(99)
	if len(lat) > 0 {
		s.Max = lat[len(lat)-1]
	}
	s.Wall = time.Duration(last - first)
	if s.Wall > 0 {
		s.Throughput = float64(len(lat)) / s.Wall.Seconds()
	}
	return s
}

// String is a one-line summary with the ratios the issue targets (p99 <= 10x
// p50, max <= 30x p50).
func (s Stats) String() string {
	ratio := func(d time.Duration) float64 {
		if s.P50 == 0 {
			return 0
		}
		return float64(d) / float64(s.P50)
	}
	return fmt.Sprintf("commits %d, gave up %d, p50 %s, p90 %s, p99 %s (%.1fx p50), max %s (%.1fx p50), %.1f commits/s, lost races %s (max %d)",
		s.Commits, s.GaveUp, ms(s.P50), ms(s.P90), ms(s.P99), ratio(s.P99), ms(s.Max), ratio(s.Max), s.Throughput, s.histogram(), s.MaxRetries)
}

func (s Stats) histogram() string {
	var b strings.Builder
	lo := 0
	for i, ub := range RetryBuckets {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case i == len(RetryBuckets)-1:
			fmt.Fprintf(&b, "%d+:%d", lo, s.Retries[i])
		case lo == ub:
			fmt.Fprintf(&b, "%d:%d", ub, s.Retries[i])
		default:
			fmt.Fprintf(&b, "%d-%d:%d", lo, ub, s.Retries[i])
		}
		lo = ub + 1
	}
	return b.String()
}

func ms(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }
