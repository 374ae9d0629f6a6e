package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/internal/benchstore"
)

// database is the database compactbench creates its tables in.
const database = "bench"

// env is what the phases share.
type env struct {
	cfg *config
	cat *catalog.Catalog
	// log receives progress lines (stderr).
	log io.Writer
}

// logf prints one progress line.
func (e *env) logf(format string, args ...any) {
	fmt.Fprintf(e.log, "compactbench: "+format+"\n", args...)
}

// bench opens the store and runs the selected phases. It returns the report
// of what ran, also when a phase failed (then with the error).
func bench(ctx context.Context, cfg *config, log io.Writer) (*report, error) {
	wh, err := benchstore.Open(ctx, "compactbench", cfg.warehouse, database)
	if err != nil {
		return nil, err
	}
	defer wh.Close(log)
	e := &env{cfg: cfg, cat: wh.Catalog, log: log}
	rep := &report{
		Store: wh.Kind, Warehouse: wh.Redacted(), Data: cfg.data,
		GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Started: time.Now().UTC().Format(time.RFC3339),
	}
	if cfg.upsert {
		e.logf("upsert: store %s, %d buckets, %v of writes, commit every %d rows", wh.Redacted(), cfg.buckets, cfg.duration, cfg.commitRows)
		amp, rd, err := runUpsert(ctx, e)
		rep.WriteAmp, rep.Read = amp, rd
		if err != nil {
			return rep, fmt.Errorf("upsert phase: %w", err)
		}
	}
	if cfg.memory {
		e.logf("memory: %d buckets, %d commits, key %s", cfg.memBuckets, cfg.memCommits, cfg.memKey)
		mem, err := runMemory(ctx, e)
		rep.Memory = mem
		if err != nil {
			return rep, fmt.Errorf("memory phase: %w", err)
		}
	}
	return rep, nil
}
