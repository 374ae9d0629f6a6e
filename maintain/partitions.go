package maintain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paimon-go/paimon/commit"
	"github.com/paimon-go/paimon/internal/snapfiles"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/snapshot"
)

// partitionExpire is Java's PartitionExpire with the values-time and
// update-time strategies (PartitionValuesTimeExpireStrategy,
// PartitionUpdateTimeExpireStrategy).
type partitionExpire struct {
	m          *Maintainer
	expiration time.Duration
	interval   time.Duration
	updateTime bool // strategy update-time
	extractor  *timeExtractor
	maxNum     int
	batch      int // 0: one drop commit
	endInput   bool

	lastCheck time.Time // guarded by m.run

	dropOnce sync.Once
	dropper  *commit.Committer
	dropErr  error
}

func newPartitionExpire(m *Maintainer, now time.Time) (*partitionExpire, error) {
	o := m.ts.Options
	exp, set, err := o.PartitionExpirationTime()
	if err != nil || !set {
		return nil, err
	}
	p := &partitionExpire{m: m, expiration: exp, lastCheck: now}
	if p.interval, err = o.PartitionExpirationCheckInterval(); err != nil {
		return nil, err
	}
	strategy, err := o.PartitionExpirationStrategy()
	if err != nil {
		return nil, err
	}
	p.updateTime = strategy == "update-time"
	if p.maxNum, err = o.PartitionExpirationMaxNum(); err != nil {
		return nil, err
	}
	if n, set, err := o.PartitionExpirationBatchSize(); err != nil {
		return nil, err
	} else if set && n > 0 {
		p.batch = n
	}
	if p.endInput, err = o.EndInputCheckPartitionExpire(); err != nil {
		return nil, err
	}
	p.extractor, err = newTimeExtractor(o.PartitionTimestampPattern(), o.PartitionTimestampFormatter())
	if err != nil {
		return nil, fmt.Errorf("%w: %s=%q: %w", schema.ErrInvalidOption, schema.KeyPartitionTimestampFormatter, o.PartitionTimestampFormatter(), err)
	}
	return p, nil
}

// due reports whether a check is due (PartitionExpire.expire): the check
// interval is zero or has passed since the last check (or since New), or a
// batch commit ended the input and end-input.check-partition-expire is set.
func (p *partitionExpire) due(now time.Time, endInput bool) bool {
	return p.interval == 0 || now.After(p.lastCheck.Add(p.interval)) || (p.endInput && endInput)
}

// run drops the expired partitions; the next check is an interval after
// this one when it succeeded.
func (p *partitionExpire) run(ctx context.Context, now time.Time) error {
	m := p.m
	m.mu.Lock()
	m.stats.PartitionChecks++
	m.mu.Unlock()
	specs, err := p.expired(ctx, now)
	if err != nil {
		return err
	}
	if len(specs) > 0 {
		if err := p.drop(ctx, specs); err != nil {
			return err
		}
	}
	p.lastCheck = now
	return nil
}

// partition is one live partition of the latest snapshot.
type partition struct {
	values   []any
	strs     []string // Java's toString of each value (default name for null)
	key      string   // strs joined by "," (Java's sort key)
	creation int64    // newest file creation time (wall clock as UTC epoch ms); -1 unknown
}

// expired returns the specs of the partitions to drop, sorted as Java sorts
// them (by their values joined with ","), at most partition.expiration-max-num.
func (p *partitionExpire) expired(ctx context.Context, now time.Time) ([]commit.PartitionSpec, error) {
	m := p.m
	latest, err := m.sm.Latest(ctx)
	if errors.Is(err, snapshot.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	parts, err := livePartitions(ctx, m, latest)
	if err != nil {
		return nil, err
	}
	// Java compares LocalDateTime values: wall clocks of the JVM's zone.
	wall := now.In(m.zone)
	cutoff := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), time.UTC).Add(-p.expiration)
	keys := m.ts.PartitionKeys
	var out []*partition
	for _, pt := range parts {
		if p.updateTime {
			if pt.creation >= 0 && cutoff.UnixMilli() > pt.creation {
				out = append(out, pt)
			}
			continue
		}
		if slices.Contains(pt.values, nil) {
			continue // Java: a null value cannot be expired by values-time
		}
		t, err := p.extractor.extract(keys, pt.strs)
		if err != nil {
			continue // not a time: kept (Java logs a warning)
		}
		if cutoff.After(t) {
			out = append(out, pt)
		}
	}
	slices.SortFunc(out, func(a, b *partition) int { return cmp.Compare(a.key, b.key) })
	if len(out) > p.maxNum {
		out = out[:max(p.maxNum, 0)]
	}
	specs := make([]commit.PartitionSpec, len(out))
	for i, pt := range out {
		spec := make(commit.PartitionSpec, len(keys))
		for j, k := range keys {
			spec[k] = pt.values[j]
		}
		specs[i] = spec
	}
	return specs, nil
}

// livePartitions reads the partitions that hold live files in snapshot s
// (Java FileStoreScan.readPartitionEntries).
func livePartitions(ctx context.Context, m *Maintainer, s *snapshot.Snapshot) ([]*partition, error) {
	t, err := snapfiles.Open(m.fio, m.ts, "")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	merged, err := t.MergedEntries(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("partitions of snapshot %d: %w", s.ID, err)
	}
	fields := m.ts.PartitionFields()
	pc := row.PartitionComputer{Fields: fields, DefaultName: m.ts.Options.PartitionDefaultName(), Legacy: true}
	byKey := map[string]*partition{}
	var order []*partition
	for i := range merged {
		e := &merged[i]
		if e.Kind != manifest.Add {
			continue
		}
		pt := byKey[string(e.Partition)]
		if pt == nil {
			br, err := row.Deserialize(e.Partition)
			if err != nil {
				return nil, fmt.Errorf("partition of file %s: %w", e.File.FileName, err)
			}
			values, err := row.Decode(row.FieldTypes(fields), br)
			if err != nil {
				return nil, fmt.Errorf("partition of file %s: %w", e.File.FileName, err)
			}
			strs := make([]string, len(values))
			for j, v := range values {
				if strs[j], err = pc.ValueString(fields[j].Type, v); err != nil {
					return nil, fmt.Errorf("partition of file %s: %w", e.File.FileName, err)
				}
			}
			pt = &partition{values: values, strs: strs, key: strings.Join(strs, ","), creation: -1}
			byKey[string(e.Partition)] = pt
			order = append(order, pt)
		}
		if c := e.File.CreationTime; c != nil && *c > pt.creation {
			pt.creation = *c
		}
	}
	return order, nil
}

// drop commits the drop of specs, partition.expiration-batch-size at a
// time, through a Committer of the same commit user without maintenance
// (Java FileStoreCommit.dropPartitions).
func (p *partitionExpire) drop(ctx context.Context, specs []commit.PartitionSpec) error {
	p.dropOnce.Do(func() {
		p.dropper, p.dropErr = commit.New(p.m.fio, p.m.ts, p.m.commitUser)
	})
	if p.dropErr != nil {
		return p.dropErr
	}
	n := len(specs)
	if p.batch > 0 {
		n = p.batch
	}
	for len(specs) > 0 {
		k := min(n, len(specs))
		if _, err := p.dropper.DropPartitions(ctx, specs[:k]); err != nil {
			return err
		}
		p.m.mu.Lock()
		p.m.stats.PartitionsDropped += k
		p.m.mu.Unlock()
		specs = specs[k:]
	}
	return nil
}

func (p *partitionExpire) close() {
	if p.dropper != nil {
		_ = p.dropper.Close()
	}
}
