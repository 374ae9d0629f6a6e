package manifest

import (
	"flag"
	"os"
	"testing"
)

// TestMain caps the minimization of each new fuzzing input at 250 ms unless
// -test.fuzzminimizetime is given: Go's minimizer tries removing every byte of a 1–3 KB
// Avro seed (~1,500 decodes per second), so with the default of 60 s FuzzReadManifest spent
// all but a few seconds of a 5-minute run minimizing (199 inputs fuzzed; with 2 s, 14,670).
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.fuzzminimizetime" })
	if !set {
		if err := flag.Set("test.fuzzminimizetime", "250ms"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
