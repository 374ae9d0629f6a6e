package serve_test

import (
	"testing"

	"github.com/paimon-go/paimon/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
