package manifest

import (
	"flag"
	"os"
	"testing"
)

// TestMain turns off the minimization of new fuzzing inputs unless -test.fuzzminimizetime is
// given: Go's minimizer tries removing every byte of a 1–3 KB Avro seed, so with the default
// of 60 s FuzzReadManifest spent all but a few seconds of a 5-minute run minimizing (199
// inputs fuzzed; with 2 s, 14,670). After the baseline coverage of the cached corpus, with
// 250 ms it ran 738–1,306 inputs/s, without minimization 1,334–1,815 inputs/s (2 cores).
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.fuzzminimizetime" })
	if !set {
		if err := flag.Set("test.fuzzminimizetime", "0s"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
