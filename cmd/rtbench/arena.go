package main

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arena holds the benchmark's input batches outside the Go heap (anonymous
// memory maps where the platform has them, arena_unix.go). The input is
// the benchmark's, not the library's: on the Go heap its hundreds of MiB
// would count toward the collector's heap goal (GOGC: the heap grows to
// twice the live heap before a collection), so the peak RSS of a workload
// would carry about as much collector headroom for the input as the input
// itself, and "peak RSS minus input" would charge that to the library.
// Off the heap, the input costs its own bytes and nothing more. Copies are
// exact (the buffers of each array, 64-byte aligned); the arena frees
// nothing until reset, which returns its pages to the system and makes
// every batch copied into it invalid.
type arena struct {
	mu     sync.Mutex
	chunks [][]byte // mapped regions, the last one being filled
	off    int      // bytes used of the last chunk
	used   int64    // bytes handed out (with alignment), over all chunks
}

const (
	arenaChunk = 64 << 20
	arenaAlign = 64
)

// alloc returns n zeroed bytes of the arena.
func (a *arena) alloc(n int) ([]byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n = (n + arenaAlign - 1) &^ (arenaAlign - 1)
	if len(a.chunks) == 0 || a.off+n > len(a.chunks[len(a.chunks)-1]) {
		c, err := mapAnon(max(n, arenaChunk))
		if err != nil {
			return nil, fmt.Errorf("rtbench: input arena: %w", err)
		}
		a.chunks = append(a.chunks, c)
		a.off = 0
	}
	c := a.chunks[len(a.chunks)-1]
	b := c[a.off : a.off+n : a.off+n]
	a.off += n
	a.used += int64(n)
	return b, nil
}

// bytes returns the bytes handed out since the last reset.
func (a *arena) bytes() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used
}

// reset unmaps every chunk: every batch copied into the arena is invalid
// from then on.
func (a *arena) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.chunks {
		unmap(c)
	}
	a.chunks, a.off, a.used = nil, 0, 0
}

// record returns a copy of rec whose buffers live in the arena. The copy
// needs no Release (Release is harmless) and is valid until reset.
func (a *arena) record(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range rec.Columns() {
		d, err := a.data(c.Data())
		if err != nil {
			return nil, err
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows()), nil
}

func (a *arena) data(d arrow.ArrayData) (arrow.ArrayData, error) {
	if d.DataType().ID() == arrow.DICTIONARY {
		return nil, fmt.Errorf("rtbench: input arena: dictionary arrays are not copied (%s)", d.DataType())
	}
	bufs := make([]*memory.Buffer, len(d.Buffers()))
	for i, b := range d.Buffers() {
		if b == nil {
			continue
		}
		mem, err := a.alloc(b.Len())
		if err != nil {
			return nil, err
		}
		copy(mem, b.Bytes())
		bufs[i] = memory.NewBufferBytes(mem[:b.Len()])
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		cd, err := a.data(c)
		if err != nil {
			return nil, err
		}
		children[i] = cd
	}
	out := array.NewData(d.DataType(), d.Len(), bufs, children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	return out, nil
}
