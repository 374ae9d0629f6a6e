package benchstore

// The benchmarks' --store takes every store fileio serves: gs:// and
// azblob:// need their optional drivers linked.
import (
	_ "github.com/paimon-go/paimon/fileio/azure"
	_ "github.com/paimon-go/paimon/fileio/gcs"
)
