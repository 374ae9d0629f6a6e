package commit

import (
	"strings"
	"sync"

	"github.com/paimon-go/paimon/manifest"
)

// liveIndex keeps the live data files of some partitions of the snapshot a
// Committer published last: what Committer.liveFiles returns for it,
// computed once by reading and netting the base's manifests, then carried
// forward by the entries of each snapshot the Committer publishes on top
// of it. The checks of the next commit on that base (sequenceGuard.apply
// for every primary-key commit, checkConflicts for compactions) then cost
// a pass over the live entries instead of netting the whole base again:
// with 256 buckets written every 100 ms that netting was most of the
// committer's CPU. A base published by someone else, or partitions it does
// not hold, are computed as before; anything inconsistent empties it.
//
// It is safe for concurrent use.
type liveIndex struct {
	mu    sync.Mutex
	key   string          // manifestKey of the base it holds; "" holds nothing
	parts map[string]bool // the serialized partitions it holds
	// live are the live ADD entries of parts in manifest.Net order; the
	// cancelled ones are marked in dead. pos maps the identifier of each
	// live one to its index.
	live  []manifest.Entry
	dead  []bool
	pos   map[string]int
	ndead int
	hits  int // gets served (tests)
}

// manifestKey identifies a snapshot's content by its manifest list: the
// names of its manifests in list order (manifest files are never
// rewritten).
func manifestKey(base []manifest.FileMeta) string {
	var b strings.Builder
	for _, m := range base {
		b.WriteString(m.FileName)
		b.WriteByte(0)
	}
	return b.String()
}

// get returns the live files of base in parts, in manifest.Net order, when
// it holds base and all of parts.
func (x *liveIndex) get(base []manifest.FileMeta, parts map[string][]byte) ([]manifest.Entry, bool) {
	key := manifestKey(base)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.key == "" || x.key != key {
		return nil, false
	}
	for p := range parts {
		if !x.parts[p] {
			return nil, false
		}
	}
	out := make([]manifest.Entry, 0, len(x.live)-x.ndead)
	for i := range x.live {
		if x.dead[i] {
			continue
		}
		if _, ok := parts[string(x.live[i].Partition)]; ok {
			out = append(out, x.live[i])
		}
	}
	x.hits++
	return out, true
}

// set makes x hold live, the live files of base in parts.
func (x *liveIndex) set(base []manifest.FileMeta, parts map[string][]byte, live []manifest.Entry) {
	pos := make(map[string]int, len(live))
	for i := range live {
		pos[live[i].Identifier()] = i
	}
	held := make(map[string]bool, len(parts))
	for p := range parts {
		held[p] = true
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.key, x.parts, x.pos = manifestKey(base), held, pos
	x.live = append([]manifest.Entry(nil), live...)
	x.dead, x.ndead = make([]bool, len(live)), 0
}

// advance moves x from base from to base to, the snapshot published with
// delta (its delta entries, in order) on top of from. When x does not hold
// from, or delta adds a file x holds as live or deletes one it does not
// hold, x holds nothing after it.
func (x *liveIndex) advance(from, to []manifest.FileMeta, delta []manifest.Entry) {
	fromKey := manifestKey(from)
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.key == "" || x.key != fromKey {
		x.reset()
		return
	}
	for i := range delta {
		e := &delta[i]
		if !x.parts[string(e.Partition)] {
			continue
		}
		id := e.Identifier()
		j, ok := x.pos[id]
		switch {
		case e.Kind == manifest.Add && !ok:
			x.pos[id] = len(x.live)
			x.live = append(x.live, *e)
			x.dead = append(x.dead, false)
		case e.Kind == manifest.Delete && ok:
			delete(x.pos, id)
			x.dead[j] = true
			x.ndead++
		default:
			x.reset()
			return
		}
	}
	x.key = manifestKey(to)
	if x.ndead > len(x.live)/2 {
		x.compact()
	}
}

// compact drops the cancelled entries. x.mu is held.
func (x *liveIndex) compact() {
	live := make([]manifest.Entry, 0, len(x.live)-x.ndead)
	for i := range x.live {
		if !x.dead[i] {
			live = append(live, x.live[i])
		}
	}
	x.live, x.dead, x.ndead = live, make([]bool, len(live)), 0
	x.pos = make(map[string]int, len(live))
	for i := range live {
		x.pos[live[i].Identifier()] = i
	}
}

// reset makes x hold nothing. x.mu is held.
func (x *liveIndex) reset() {
	x.key, x.parts, x.live, x.dead, x.pos, x.ndead = "", nil, nil, nil, nil, 0
}
