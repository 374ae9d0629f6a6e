package ocf

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
)

// maxHeader bounds the container header OpenAt reads (schema JSON and metadata); Java's
// headers of even wide tables are a few kilobytes.
const maxHeader = 16 << 20

// OpenAt parses the container header of the size-byte file r and returns a File whose Next
// reads one data block at a time from r, so that only the current block is in memory. Errors
// wrap ErrCorrupt (malformed or truncated header) or are r's I/O errors as they are.
func OpenAt(r io.ReaderAt, size int64, zdec *zstd.Decoder) (*File, error) {
	n := min(size, 64<<10)
	for {
		buf := make([]byte, n)
		if err := readAt(r, buf, 0); err != nil {
			return nil, err
		}
		f, err := Open(buf, zdec)
		if err == nil {
			f.data, f.ra, f.size = nil, r, size
			return f, nil
		}
		// A header cut short by the prefix is read again with a longer prefix.
		if !errors.Is(err, ErrCorrupt) || n >= size || n >= maxHeader || len(buf) < 4 {
			return nil, err
		}
		n = min(size, 4*n, maxHeader)
	}
}

// readAt fills buf from offset off of r; a file shorter than that is corrupt (truncated).
func readAt(r io.ReaderAt, buf []byte, off int64) error {
	got, err := r.ReadAt(buf, off)
	if got == len(buf) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: truncated: %d bytes at offset %d, %d read", ErrCorrupt, len(buf), off, got)
	}
	return err
}

// nextAt is Next for a File of OpenAt.
func (f *File) nextAt() (int64, []byte, error) {
	at := int64(f.pos)
	if at >= f.size {
		return 0, nil, io.EOF
	}
	var hdr [20]byte
	h := hdr[:min(int64(len(hdr)), f.size-at)]
	if err := readAt(f.ra, h, at); err != nil {
		return 0, nil, fmt.Errorf("block header at offset %d: %w", at, err)
	}
	d := NewDecoder(h)
	count := d.Long()
	size := d.Long()
	if d.err != nil {
		return 0, nil, fmt.Errorf("block header at offset %d: %w", at, d.err)
	}
	left := f.size - at - int64(d.pos)
	if count < 0 || size < 0 || size > left-16 {
		return 0, nil, fmt.Errorf("%w: block at offset %d has count %d, size %d with %d bytes left",
			ErrCorrupt, at, count, size, left)
	}
	buf := make([]byte, size+16)
	if err := readAt(f.ra, buf, at+int64(d.pos)); err != nil {
		return 0, nil, fmt.Errorf("block at offset %d: %w", at, err)
	}
	f.pos = int(at + int64(d.pos) + size + 16)
	return f.block(int(at), count, buf[:size], buf[size:])
}

// Take returns the bytes of the container completed so far (the header and every flushed
// block) and forgets them, so that a caller streaming the file to storage holds at most one
// block. Finish then returns only what follows.
func (w *Writer) Take() []byte {
	out := w.out
	w.out = nil
	return out
}

// Pending returns the uncompressed bytes of the block being built.
func (w *Writer) Pending() int { return len(w.Block.Buf) }

// RecordCountAt is RecordCount for a File of OpenAt: it reads every block header (not the
// blocks). Errors wrap ErrCorrupt or are I/O errors of the reader.
func (f *File) RecordCountAt() (int64, error) {
	var total int64
	at := int64(f.pos)
	for at < f.size {
		var hdr [20]byte
		h := hdr[:min(int64(len(hdr)), f.size-at)]
		if err := readAt(f.ra, h, at); err != nil {
			return 0, err
		}
		d := NewDecoder(h)
		count := d.Long()
		size := d.Long()
		if d.err != nil {
			return 0, d.err
		}
		next := at + int64(d.pos) + size + 16
		if count < 0 || size < 0 || next > f.size || total > math.MaxInt64-count {
			return 0, fmt.Errorf("%w: invalid block header at offset %d", ErrCorrupt, at)
		}
		total += count
		at = next
	}
	return total, nil
}

// HeaderSize returns the length of the container header (the offset of the first block).
func (f *File) HeaderSize() int { return f.headerSize }
