package commitcases_test

import (
	"testing"

	"github.com/paimon-go/paimon/internal/commitrace"
	"github.com/paimon-go/paimon/testenv"
)

// TestMain runs the tests, unless the process is a worker of a racing
// committer test (race_test.go), which commits and exits.
func TestMain(m *testing.M) {
	commitrace.WorkerMain()
	testenv.Main(m)
}
