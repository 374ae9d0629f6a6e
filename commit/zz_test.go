package commit_test
import ("testing"; "github.com/paimon-go/paimon/commit")
func TestZZ(t *testing.T) { race(t, "", 8, 25); t.Log("max retry", commit.MaxSeen) }
