package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestZZDump(t *testing.T) {
	files, _ := filepath.Glob("../testdata/paimon-tables/*/manifest/*")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		base := filepath.Base(f)
		var v any
		var err error
		switch {
		case strings.HasPrefix(base, "manifest-list-"):
			v, err = DecodeManifestList(data, base)
		case strings.HasPrefix(base, "index-manifest-"):
			v, err = DecodeIndexManifest(data, base)
		default:
			v, err = DecodeManifest(data, base)
		}
		j, _ := json.Marshal(v)
		fmt.Printf("%s\n  err=%v\n  %s\n", f, err, j)
	}
}
