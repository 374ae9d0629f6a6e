package commit

import (
	"context"
	"time"

	"github.com/paimon-go/paimon/manifest"
)

// baseList is a base manifest list and the merged manifests it names,
// written or being written.
type baseList struct {
	after  *base // the snapshot it is the next base list of
	done   chan struct{}
	merged []manifest.FileMeta // the list's rows
	files  []pendingFile       // merged manifests, then the list itself
	err    error               // set when done; nothing is left written then
	puts   *putSpans           // when its files were written (traced Committers)
}

func (l *baseList) list() pendingFile { return l.files[len(l.files)-1] }

// writeBaseList merges the manifests of b and writes the merged manifests
// and the base list of the snapshot that follows b, recording the PUTs in ps
// (nil: not traced). It returns the list's rows and the files written, the
// list last.
func (c *Committer) writeBaseList(ctx context.Context, b *base, ps *putSpans) ([]manifest.FileMeta, []pendingFile, error) {
	merged, pending, err := c.mw.merge(ctx, b.metas, c.merge, c.ts.PartitionFields())
	if err != nil {
		return nil, nil, err
	}
	list, err := c.mw.encodeList(merged)
	if err != nil {
		return nil, nil, err
	}
	files := append(pending, list)
	if err := c.mw.putAll(ctx, ps, files...); err != nil {
		return nil, nil, err
	}
	return merged, files, nil
}

// prepareTimeout bounds the background preparation of a base list.
const prepareTimeout = time.Minute

// prepareNext writes, in the background, the base manifest list of the
// snapshot after b, which this Committer just published: a Committer that
// commits again without anyone committing in between then finds its base
// list written and has only its delta to write. It is done only on object
// stores (where a PUT costs milliseconds), from the second snapshot a
// Committer creates on (a Committer used once never prepares anything), and
// when the commit that published b did not lose a race (under contention
// the list would mostly be wasted).
// A prepared list that is not used is deleted by the next commit or by
// Close; a process that ends without Close leaves it behind as an orphan
// file, as a crash would.
func (c *Committer) prepareNext(ctx context.Context, b *base) {
	if !c.background {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), prepareTimeout)
	l := &baseList{after: b, done: make(chan struct{}), puts: c.newPutSpans()}
	c.mu.Lock()
	old := c.next
	c.next = l
	c.mu.Unlock()
	go func() {
		defer cancel()
		c.discard(ctx, old)
		l.merged, l.files, l.err = c.writeBaseList(ctx, b, l.puts)
		close(l.done)
	}()
}

// takePrepared returns the prepared base list for b, if there is one, and
// forgets it; a prepared list for another base is deleted.
func (c *Committer) takePrepared(ctx context.Context, b *base) *baseList {
	c.mu.Lock()
	l := c.next
	c.next = nil
	c.mu.Unlock()
	if l == nil {
		return nil
	}
	<-l.done
	if l.after != b || l.err != nil {
		c.discard(ctx, l)
		return nil
	}
	return l
}

// discard waits for a prepared base list and deletes its files.
func (c *Committer) discard(ctx context.Context, l *baseList) {
	if l == nil {
		return
	}
	<-l.done
	if l.err == nil {
		c.mw.deleteFiles(ctx, names(l.files)...)
	}
}
