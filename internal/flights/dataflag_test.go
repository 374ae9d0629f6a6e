package flights

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestDataFlag(t *testing.T) {
	if got, err := DataFlag("/some/file.parquet"); got != "/some/file.parquet" || err != nil {
		t.Errorf("DataFlag(given) = %q, %v", got, err)
	}
	want, err := filepath.Abs(filepath.Join("..", "..", File))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DataFlag(""); got != want || err != nil {
		t.Errorf("DataFlag(\"\") in the repository = %q, %v; want %q", got, err, want)
	}
	t.Chdir(t.TempDir())
	_, err = DataFlag("")
	const msg = "flights: data set not found: testdata/flights/flights-3m.parquet not found in the working directory or its parents; pass --data FILE"
	if !errors.Is(err, ErrNotFound) || err.Error() != msg {
		t.Errorf("DataFlag(\"\") outside the repository: %v; want %q", err, msg)
	}
}
