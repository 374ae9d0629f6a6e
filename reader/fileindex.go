package reader

import (
	"fmt"
	"slices"

	"github.com/paimon-go/paimon/fileindex"
	"github.com/paimon-go/paimon/manifest"
	"github.com/paimon-go/paimon/predicate"
	"github.com/paimon-go/paimon/schema"
	"github.com/paimon-go/paimon/types"
)

// indexPruner skips data files whose file index (Java FileIndexPredicate
// over DataFileMeta.embeddedIndex) proves that an Equal or In conjunct of the
// filter matches none of their rows. For primary-key tables only conjuncts on
// primary-key columns are used: a value column's filter must not hide the
// newest version of a key. Only embedded indexes are read here; files whose
// index lives in a separate .index extra file are kept.
type indexPruner struct {
	schemaID int64
	conj     []indexConjunct
	// skipped counts the ADD entries skipped, reported as
	// Plan.FileIndexSkipped.
	skipped int
}

type indexConjunct struct {
	column string
	t      types.DataType
	values []any
}

func newIndexPruner(filter predicate.Predicate, ts *schema.TableSchema) *indexPruner {
	if filter == nil {
		return nil
	}
	p := &indexPruner{schemaID: ts.ID}
	for _, c := range predicate.Conjuncts(filter) {
		i, lits, ok := equalityLiterals(c)
		if !ok || i < 0 || i >= len(ts.Fields) {
			continue
		}
		f := ts.Fields[i]
		if len(ts.PrimaryKeys) > 0 && !slices.Contains(ts.PrimaryKeys, f.Name) {
			continue
		}
		p.conj = append(p.conj, indexConjunct{column: f.Name, t: f.Type, values: lits})
	}
	if len(p.conj) == 0 {
		return nil
	}
	return p
}

// mayContain reports whether file f may hold rows of every usable conjunct.
// Files written under another schema are kept (their column names may
// differ). A damaged embedded index fails the scan, as Java's
// FileIndexPredicate throws on it; the error wraps fileindex.ErrMalformed and
// names the data file.
func (p *indexPruner) mayContain(e *manifest.Entry) (bool, error) {
	f := &e.File
	if len(f.EmbeddedIndex) == 0 || f.SchemaID != p.schemaID {
		return true, nil
	}
	x, err := fileindex.Parse(f.EmbeddedIndex)
	if err != nil {
		return false, fmt.Errorf("reader: embedded file index of data file %s: %w", f.FileName, err)
	}
	for _, c := range p.conj {
		ok, err := x.MightContain(c.column, c.t, c.values)
		if err != nil {
			return false, fmt.Errorf("reader: embedded file index of data file %s: %w", f.FileName, err)
		}
		if !ok {
			if e.Kind == manifest.Add {
				p.skipped++
			}
			return false, nil
		}
	}
	return true, nil
}
