package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/paimon-go/paimon/catalog"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/testenv"
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

// store is the warehouse of a run and how to clean it up.
type store struct {
	url  string
	kind string // "local" or "minio"
	// close stops what openStore started and removes a temporary
	// directory unless keep.
	close func(keep bool)
	temp  string
}

// openStore returns the warehouse: a fresh bucket on a MinIO server started
// for the run (--minio), --dir, or a fresh temporary directory.
func openStore(ctx context.Context, cfg *config) (*store, error) {
	if cfg.minio {
		srv, err := testenv.StartMinIO()
		if err != nil {
			return nil, fmt.Errorf("--minio: %w", err)
		}
		url, err := srv.NewBucket(ctx)
		if err != nil {
			srv.Stop()
			return nil, fmt.Errorf("--minio: %w", err)
		}
		return &store{url: url, kind: "minio", close: func(bool) { srv.Stop() }}, nil
	}
	if cfg.dir != "" {
		abs, err := filepath.Abs(cfg.dir)
		if err != nil {
			return nil, fmt.Errorf("--dir: %w", err)
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("--dir: %w", err)
		}
		return &store{url: "file://" + abs, kind: "local", close: func(bool) {}}, nil
	}
	dir, err := os.MkdirTemp("", "compactbench-")
	if err != nil {
		return nil, fmt.Errorf("temporary warehouse: %w", err)
	}
	return &store{url: "file://" + dir, kind: "local", temp: dir, close: func(keep bool) {
		if !keep {
			_ = os.RemoveAll(dir)
		}
	}}, nil
}

// redactURL drops the query of a store URL (endpoint and credentials).
func redactURL(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i]
	}
	return u
}

// bench opens the store and runs the selected phases. It returns the report
// of what ran, also when a phase failed (then with the error).
func bench(ctx context.Context, cfg *config, log io.Writer) (*report, error) {
	st, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer func() {
		st.close(cfg.keep)
		if cfg.keep && st.temp != "" {
			fmt.Fprintf(log, "compactbench: warehouse kept at %s\n", st.temp)
		}
	}()
	wh, err := fileio.Open(ctx, st.url)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	defer wh.Close()
	cat := catalog.New(wh)
	if err := cat.CreateDatabase(ctx, database, true); err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	e := &env{cfg: cfg, cat: cat, log: log}
	rep := &report{
		Store: st.kind, Warehouse: redactURL(st.url), Data: cfg.data,
		GoVersion: runtime.Version(), CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Started: time.Now().UTC().Format(time.RFC3339),
	}
	if cfg.upsert {
		e.logf("upsert: store %s, %d buckets, %v of writes, commit every %d rows", redactURL(st.url), cfg.buckets, cfg.duration, cfg.commitRows)
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
