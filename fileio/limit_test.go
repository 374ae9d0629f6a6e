package fileio

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestReadFileLimit(t *testing.T) {
	ctx := context.Background()
	f, err := Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "a/b", []byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadFileLimit(ctx, "a/b", 10)
	if err != nil || string(got) != "0123456789" {
		t.Errorf("limit 10: %q, %v", got, err)
	}
	got, err = f.ReadFileLimit(ctx, "a/b", 9)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "a/b") || got != nil {
		t.Errorf("limit 9: %q, %v; want ErrTooLarge naming a/b", got, err)
	}
	if _, err := f.ReadFileLimit(ctx, "a/c", 9); !errors.Is(err, ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}
