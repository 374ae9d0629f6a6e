// Package theta unions Apache DataSketches theta sketches exactly as
// datasketches-java 4.2.0 does for Paimon's theta_sketch aggregate function
// (FieldThetaSketchAgg, ThetaSketch.union): a heap Union with the default
// nominal entries 4096, seed 9001 and resize factor X8 takes both
// serialized sketches in turn, and its result is serialized as an ordered
// compact sketch (CompactSketch.toByteArray).
//
// Only what the union needs is here: reading serialization version 3
// sketches (empty, single item, compact ordered or unordered, and the hash
// table form of update sketches), the union's gadget (HeapQuickSelectSketch:
// its resize and rebuild points decide which hashes survive) and the
// compact serialization. The hash table's slot layout is not needed: the
// result depends only on the set of hashes and the points where the table
// grows or is rebuilt.
//
// # Errors
//
// ErrCorrupt marks bytes that are no theta sketch (truncated, a family that
// is no sketch, a negative hash, a seed hash other than 9001's), which Java
// rejects with SketchesArgumentException or reads out of bounds.
// ErrUnsupported marks serialization versions 1, 2 and 4 (older Java
// sketches and compressed compact sketches), which Java reads and this
// package does not.
package theta

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

var (
	// ErrCorrupt marks bytes that are no theta sketch.
	ErrCorrupt = errors.New("theta: corrupt sketch")
	// ErrUnsupported marks a sketch serialization this package does not read.
	ErrUnsupported = errors.New("theta: unsupported sketch serialization")
)

const (
	lgNomLongs = 12 // ThetaUtil.DEFAULT_NOMINAL_ENTRIES = 4096
	k          = 1 << lgNomLongs
	lgRF       = 3      // ResizeFactor.X8
	minLgArr   = 5      // ThetaUtil.MIN_LG_ARR_LONGS
	seedHash   = 0x93cc // ThetaUtil.computeSeedHash(9001)
	maxTheta   = math.MaxInt64

	familyAlpha       = 1
	familyQuickSelect = 2
	familyCompact     = 3

	flagEmpty   = 4
	flagCompact = 8
	flagOrdered = 16
	flagSingle  = 32
)

// gadget is the union's HeapQuickSelectSketch reduced to what decides the
// result: the retained hashes, theta, the table size and emptiness.
type gadget struct {
	set       hashSet
	theta     int64
	lgArr     int
	threshold int
	empty     bool
}

func threshold(lgArr int) int {
	f := 0.5 // ThetaUtil.RESIZE_THRESHOLD
	if lgArr > lgNomLongs {
		f = 15.0 / 16.0 // REBUILD_THRESHOLD
	}
	return int(math.Floor(f * float64(int(1)<<lgArr)))
}

func newGadget() *gadget {
	lgArr := (lgNomLongs+1-minLgArr)%lgRF + minLgArr // ThetaUtil.startingSubMultiple
	return &gadget{theta: maxTheta, lgArr: lgArr, threshold: threshold(lgArr), empty: true}
}

func (g *gadget) thetaLong() int64 {
	if g.empty {
		return maxTheta
	}
	return g.theta
}

// sorted returns the retained hashes ascending.
func (g *gadget) sorted() []int64 {
	out := make([]int64, 0, g.set.n)
	for _, h := range g.set.slots {
		if h != 0 {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// hashSet is an open-addressing set of non-zero hashes (0 marks a free
// slot), big enough for the gadget's largest table (15/16 of 2^13).
type hashSet struct {
	slots []int64
	n     int
}

const setBits = 14

// add inserts h and reports whether it was new.
func (s *hashSet) add(h int64) bool {
	if s.slots == nil {
		s.slots = make([]int64, 1<<setBits)
	}
	mask := len(s.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			s.n++
			return true
		}
	}
}

// keep replaces the set's content by hs.
func (s *hashSet) keep(hs []int64) {
	clear(s.slots)
	s.n = 0
	for _, h := range hs {
		s.add(h)
	}
}

// update is HeapQuickSelectSketch.hashUpdate.
func (g *gadget) update(h int64) error {
	if h < 0 {
		return fmt.Errorf("%w: negative hash %d", ErrCorrupt, h)
	}
	g.empty = false
	if h == 0 || h >= g.theta {
		return nil
	}
	if !g.set.add(h) {
		return nil
	}
	if g.set.n <= g.threshold {
		return nil
	}
	if g.lgArr <= lgNomLongs {
		g.lgArr += max(min(lgRF, lgNomLongs+1-g.lgArr), 1)
		g.threshold = threshold(g.lgArr)
		return nil
	}
	// quickSelectAndRebuild: theta becomes the (k+1)th smallest hash
	s := g.sorted()
	g.theta = s[k]
	g.set.keep(s[:k])
	return nil
}

// union is UnionImpl with its gadget.
type union struct {
	g          *gadget
	unionTheta int64
	unionEmpty bool
}

// Union returns the serialized union of two serialized theta sketches, as
// Paimon's ThetaSketch.union(acc, in) returns it.
func Union(acc, in []byte) ([]byte, error) {
	u := &union{g: newGadget(), unionTheta: maxTheta, unionEmpty: true}
	if err := u.add(acc); err != nil {
		return nil, err
	}
	if err := u.add(in); err != nil {
		return nil, err
	}
	return u.result(), nil
}

// add is UnionImpl.union(Memory) for serialization version 3.
func (u *union) add(b []byte) error {
	if len(b) < 16 {
		return nil // Java: "empty or garbage", ignored
	}
	preLongs := int(b[0] & 0x3f)
	serVer, fam, flags := b[1], b[2], b[5]
	switch serVer {
	case 3:
	case 1, 2, 4:
		return fmt.Errorf("%w: serialization version %d", ErrUnsupported, serVer)
	default:
		return fmt.Errorf("%w: unknown serialization version %d", ErrCorrupt, serVer)
	}
	if fam < familyAlpha || fam > familyCompact {
		return fmt.Errorf("%w: family %d is no Alpha, QuickSelect or Compact sketch", ErrCorrupt, fam)
	}
	if preLongs == 1 {
		single := (fam == familyCompact && flags&0x1f == 0x1a) || flags&flagSingle != 0
		if single {
			return u.g.update(int64(binary.LittleEndian.Uint64(b[8:])))
		}
		return nil
	}
	if sh := binary.LittleEndian.Uint16(b[6:]); sh != seedHash {
		return fmt.Errorf("%w: seed hash %#04x is not that of seed 9001 (%#04x)", ErrCorrupt, sh, seedHash)
	}
	count := int(int32(binary.LittleEndian.Uint32(b[8:])))
	thetaIn := int64(maxTheta)
	if preLongs == 2 {
		if count == 0 {
			return nil
		}
	} else {
		if len(b) < 24 {
			return fmt.Errorf("%w: %d bytes, too short for %d preamble longs", ErrCorrupt, len(b), preLongs)
		}
		thetaIn = int64(binary.LittleEndian.Uint64(b[16:]))
	}
	u.unionTheta = min(u.unionTheta, thetaIn, u.g.thetaLong())
	u.unionEmpty = false
	hashes := func(n int) ([]byte, error) {
		if n < 0 || n > (len(b)-preLongs*8)/8 || preLongs*8 > len(b) {
			return nil, fmt.Errorf("%w: %d hashes after %d preamble longs do not fit in %d bytes", ErrCorrupt, n, preLongs, len(b))
		}
		return b[preLongs*8 : preLongs*8+n*8], nil
	}
	if flags&flagOrdered != 0 {
		hs, err := hashes(count)
		if err != nil {
			return err
		}
		for i := 0; i < len(hs); i += 8 {
			h := int64(binary.LittleEndian.Uint64(hs[i:]))
			if h >= u.unionTheta {
				break
			}
			if err := u.g.update(h); err != nil {
				return err
			}
		}
	} else {
		size := count
		if flags&flagCompact == 0 {
			lgArr := int(b[4])
			if lgArr > 30 {
				return fmt.Errorf("%w: hash table of 2^%d slots", ErrCorrupt, lgArr)
			}
			size = 1 << lgArr
		}
		hs, err := hashes(size)
		if err != nil {
			return err
		}
		for i := 0; i < len(hs); i += 8 {
			h := int64(binary.LittleEndian.Uint64(hs[i:]))
			if h <= 0 || h >= u.unionTheta {
				continue
			}
			if err := u.g.update(h); err != nil {
				return err
			}
		}
	}
	u.unionTheta = min(u.unionTheta, u.g.thetaLong())
	return nil
}

// result is UnionImpl.getResult() (ordered, on heap) serialized by
// CompactSketch.toByteArray.
func (u *union) result() []byte {
	s := u.g.sorted()
	gTheta := u.g.thetaLong()
	adj := gTheta
	if len(s) > k {
		adj = s[k]
	}
	theta := min(gTheta, adj, u.unionTheta)
	n, _ := slices.BinarySearch(s, theta)
	s = s[:n]
	empty := (u.g.empty && u.unionEmpty) || (len(s) == 0 && theta == maxTheta)
	if empty {
		return []byte{1, 3, familyCompact, 0, 0, 0x1e, 0, 0}
	}
	if len(s) == 1 && theta == maxTheta {
		out := []byte{1, 3, familyCompact, 0, 0, 0x3a, seedHash & 0xff, seedHash >> 8}
		return binary.LittleEndian.AppendUint64(out, uint64(s[0]))
	}
	preLongs := 3
	if theta == maxTheta {
		preLongs = 2
	}
	out := []byte{byte(preLongs), 3, familyCompact, 0, 0, 2 | flagCompact | flagOrdered, seedHash & 0xff, seedHash >> 8}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(s)))
	out = binary.LittleEndian.AppendUint32(out, math.Float32bits(1))
	if preLongs == 3 {
		out = binary.LittleEndian.AppendUint64(out, uint64(theta))
	}
	for _, h := range s {
		out = binary.LittleEndian.AppendUint64(out, uint64(h))
	}
	return out
}
