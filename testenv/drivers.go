package testenv

// Tests open the emulators' gs:// and azblob:// URLs (FakeGCS, Azurite)
// through fileio.Open, which serves them with the optional drivers linked.
import (
	_ "github.com/paimon-go/paimon/fileio/azure"
	_ "github.com/paimon-go/paimon/fileio/gcs"
)
