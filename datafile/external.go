package datafile

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/paimon-go/paimon/row"
	"github.com/paimon-go/paimon/schema"
)

// KeyExternalPathsWeights is the table option data-file.external-paths.weights
// (Java CoreOptions.DATA_FILE_EXTERNAL_PATHS_WEIGHTS): "w1,w2,..." positive
// integer weights of the external paths, in their order, for strategy
// weighted.
const KeyExternalPathsWeights = "data-file.external-paths.weights"

// External path strategies (Java CoreOptions.ExternalPathStrategy).
const (
	strategyRoundRobin = "round-robin"
	strategySpecificFS = "specific-fs"
	strategyEntropy    = "entropy-inject"
	strategyWeighted   = "weighted"
)

// Entropy directories of strategy entropy-inject
// (EntropyInjectExternalPathProvider): the low 20 bits of the file name's
// hash as a binary string, split into 3 directories of 4 digits and a last
// one of the remaining 8.
const (
	entropyBits     = 20
	entropyDirLen   = 4
	entropyDirDepth = 3
)

// externalPaths are the roots new data files are written below, and how one
// is chosen per file (Java FileStorePathFactory.createExternalPathProvider
// and the ExternalPathProvider implementations).
type externalPaths struct {
	roots    []string // in Java's org.apache.paimon.fs.Path spelling, no trailing slash
	strategy string
	weights  []int // strategy weighted with two or more roots; else nil
	total    int   // sum of weights
}

// parseExternalPaths reads data-file.external-paths and its strategy,
// specific file system and weights (AbstractFileStore.createExternalPaths,
// CoreOptions.externalPathWeights, ExternalPathProvider.create). It returns
// nil when new files stay in the table (no paths, strategy none). Errors wrap
// schema.ErrInvalidOption: those of schema.Options.DataFileExternalPaths, a
// malformed root, and malformed weights or as many weights as roots missing
// for strategy weighted.
func parseExternalPaths(o schema.Options) (*externalPaths, error) {
	roots, err := o.DataFileExternalPaths()
	if err != nil || len(roots) == 0 {
		return nil, err
	}
	e := &externalPaths{strategy: strings.ToLower(o.String(schema.KeyDataFileExternalPathsStrategy, ""))}
	for _, r := range roots {
		jp, err := javaPath(r)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", schema.ErrInvalidOption, schema.KeyDataFileExternalPaths, err)
		}
		e.roots = append(e.roots, jp)
	}
	if raw, ok := o.Get(KeyExternalPathsWeights); ok && e.strategy == strategyWeighted {
		var ws []int
		for _, s := range strings.Split(raw, ",") {
			w, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || w <= 0 {
				return nil, fmt.Errorf("%w: %s = %q: weights must be positive integers", schema.ErrInvalidOption, KeyExternalPathsWeights, raw)
			}
			ws = append(ws, w)
		}
		// Java falls back to round-robin for one path.
		if len(e.roots) >= 2 {
			if len(ws) != len(e.roots) {
				return nil, fmt.Errorf("%w: %s = %q: %d weights for %d external paths", schema.ErrInvalidOption, KeyExternalPathsWeights, raw, len(ws), len(e.roots))
			}
			e.weights = ws
			for _, w := range ws {
				e.total += w
			}
		}
	}
	return e, nil
}

// javaPath spells the root location r as Java's org.apache.paimon.fs.Path
// prints it (the form Java stores in _EXTERNAL_PATH): "file:/abs/dir" for
// local paths (an empty authority is dropped), "scheme://authority/path"
// otherwise, with repeated and trailing slashes removed.
func javaPath(r string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(r))
	if err != nil || u.Scheme == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("external path %q is not a location (scheme://[authority]/path)", r)
	}
	p := path.Clean("/" + u.Path)
	if p == "/" {
		p = ""
	}
	if u.Host == "" {
		if p == "" {
			return "", fmt.Errorf("external path %q has no path", r)
		}
		return u.Scheme + ":" + p, nil
	}
	return u.Scheme + "://" + u.Host + p, nil
}

// place returns the location of the new file name in the bucket directory
// dir (relative to the table root, data-file.path-directory included): the
// next root of n's provider, dir, the entropy directories of
// entropy-inject, and the name (ExternalPathProvider.getNextExternalDataPath).
func (e *externalPaths) place(n *Namer, dir, name string) string {
	var root string
	switch {
	case e.weights != nil:
		// WeightedExternalPathProvider: the first root whose cumulative
		// weight exceeds a uniform draw in [0, total).
		x := rand.Float64() * float64(e.total)
		sum := 0
		root = e.roots[len(e.roots)-1]
		for i, w := range e.weights {
			sum += w
			if x < float64(sum) {
				root = e.roots[i]
				break
			}
		}
	default:
		// Round-robin (also specific-fs and weighted without weights)
		// starts at a random root, entropy-inject at 0; both advance
		// before choosing.
		if !n.started {
			n.started = true
			if e.strategy != strategyEntropy {
				n.pos = rand.IntN(len(e.roots))
			}
		}
		n.pos++
		if n.pos == len(e.roots) {
			n.pos = 0
		}
		root = e.roots[n.pos]
	}
	if e.strategy == strategyEntropy {
		return root + "/" + dir + "/" + EntropyDirs(name) + "/" + name
	}
	return root + "/" + dir + "/" + name
}

// EntropyDirs returns the directories strategy entropy-inject puts between
// the bucket directory and the file called name
// (EntropyInjectExternalPathProvider.computeHash): the low 20 bits of
// Guava's murmur3_32 (seed 0) of the UTF-8 name as binary digits, as
// "dddd/dddd/dddd/dddddddd".
func EntropyDirs(name string) string {
	h := murmur3x86(name) | 1<<31
	bin := strconv.FormatUint(uint64(h), 2)
	bin = bin[len(bin)-entropyBits:]
	var b strings.Builder
	for i := 0; i < entropyDirDepth*entropyDirLen; i += entropyDirLen {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(bin[i : i+entropyDirLen])
	}
	b.WriteByte('/')
	b.WriteString(bin[entropyDirDepth*entropyDirLen:])
	return b.String()
}

// murmur3x86 is Murmur3 x86_32 with seed 0 over the bytes of s (Guava
// Hashing.murmur3_32().hashString(s, UTF_8) for the ASCII names of data
// files).
func murmur3x86(s string) uint32 { return row.Murmur3([]byte(s), 0) }
