package keyindex

import (
	"testing"
	"time"

	"github.com/paimon-go/paimon/manifest"
)

// TestFresh: a partition-bucket is bootstrapped when one of its files was
// created at most ttl before now (Java IndexBootstrap.filterSplit,
// currentTime <= fileTime + ttl), creation times being local wall clock
// stored as UTC.
func TestFresh(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local)
	file := func(created time.Time) manifest.DataFileMeta {
		_, off := created.Zone()
		ms := created.UnixMilli() + int64(off)*1000
		return manifest.DataFileMeta{CreationTime: &ms}
	}
	ttl := time.Hour
	old, edge, late := file(now.Add(-2*time.Hour)), file(now.Add(-time.Hour)), file(now.Add(-time.Hour-time.Millisecond))
	for _, c := range []struct {
		name  string
		files []manifest.DataFileMeta
		want  bool
	}{
		{"none", nil, false},
		{"old", []manifest.DataFileMeta{old}, false},
		{"one millisecond too old", []manifest.DataFileMeta{late}, false},
		{"exactly ttl old", []manifest.DataFileMeta{edge}, true},
		{"old and new", []manifest.DataFileMeta{old, file(now)}, true},
		{"no creation time", []manifest.DataFileMeta{old, {}}, true},
	} {
		if got := Fresh(c.files, ttl, now); got != c.want {
			t.Errorf("%s: Fresh = %v, want %v", c.name, got, c.want)
		}
	}
}
