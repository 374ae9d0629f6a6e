package parquet

import "os"

// flightsPath returns the path of flights-3m.parquet, looking first at the
// repository copy (testdata/flights) and then at the shared data folder next
// to the repository; "" when neither exists.
func flightsPath() string {
	for _, p := range []string{
		"../../testdata/flights/flights-3m.parquet",
		"../../../shared/data/flights-3m.parquet",
	} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
