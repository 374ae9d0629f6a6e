package reader

import (
	"time"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/metrics"
)

// WithReporter makes Plan hand r a *metrics.ScanReport (Java ScanMetrics):
// the snapshot planned, the manifests listed and skipped, the entries read
// and pruned by partition, bucket, statistics and file index, the splits,
// data files and bytes planned, the duration and the store requests. nil
// reports nothing.
func WithReporter(r metrics.Reporter) Option { return func(c *config) { c.reporter = r } }

// scanReport is the report of a Plan call that returned p and err.
func scanReport(s *Scan, p *Plan, err error, d time.Duration, req fileio.Stats) *metrics.ScanReport {
	r := &metrics.ScanReport{
		Table: fileio.Redact(s.root.URL()), Duration: d, Err: err,
		Requests: metrics.Requests(req),
	}
	if s.cfg.filter != nil {
		r.Filter = s.cfg.filter.String()
	}
	if s.cfg.where != "" {
		if r.Filter != "" {
			r.Filter += " AND "
		}
		r.Filter += s.cfg.where
	}
	if p == nil {
		return r
	}
	if p.Snapshot != nil {
		r.Snapshot = p.Snapshot.ID
	}
	if c := p.pr; c != nil {
		r.Manifests, r.ManifestsSkipped = c.counts.manifests, c.counts.manifestsSkipped
		r.Entries, r.PrunedByPartition, r.PrunedByBucket, r.PrunedByStats = c.counts.entries, c.counts.partition, c.counts.bucket, c.counts.stats
	}
	r.PrunedByIndex = p.FileIndexSkipped
	r.Splits = len(p.Splits)
	for _, sp := range p.Splits {
		r.DataFiles += len(sp.Files)
		for i := range sp.Files {
			r.DataBytes += sp.Files[i].FileSize
		}
	}
	return r
}
