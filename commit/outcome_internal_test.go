package commit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/paimon-go/paimon/fileio"
)

func TestOutcomeResolver(t *testing.T) {
	ctx := context.Background()
	lost := fmt.Errorf("fileio: create snapshot/snapshot-2: %w: lost answer", fileio.ErrOutcomeUnknown)
	newResolver := func(t *testing.T) (outcomeResolver, *fileio.FileIO, *[]time.Duration) {
		fio, err := fileio.Open(ctx, "mem://")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fio.Close() })
		var waits []time.Duration
		r := newOutcomeResolver(fio, func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			return nil
		})
		return r, fio, &waits
	}
	const path = "snapshot/snapshot-2"
	mine := []byte(`{"commitUser":"u","commitIdentifier":7}`)

	t.Run("ours", func(t *testing.T) {
		r, fio, _ := newResolver(t)
		if err := fio.WriteFile(ctx, path, mine); err != nil {
			t.Fatal(err)
		}
		if err := r.resolve(ctx, path, mine, lost); err != nil {
			t.Fatalf("resolve: %v, want nil", err)
		}
	})
	t.Run("theirs", func(t *testing.T) {
		r, fio, _ := newResolver(t)
		if err := fio.WriteFile(ctx, path, []byte(`{"commitUser":"other"}`)); err != nil {
			t.Fatal(err)
		}
		if err := r.resolve(ctx, path, mine, lost); !errors.Is(err, fileio.ErrExist) || errors.Is(err, ErrOutcomeUnknown) {
			t.Fatalf("resolve: %v, want fileio.ErrExist", err)
		}
	})
	t.Run("absent", func(t *testing.T) {
		r, _, _ := newResolver(t)
		err := r.resolve(ctx, path, mine, lost)
		if err == nil || errors.Is(err, ErrOutcomeUnknown) || errors.Is(err, fileio.ErrExist) {
			t.Fatalf("resolve: %v, want the create's error", err)
		}
	})
	t.Run("reads fail", func(t *testing.T) {
		r, fio, waits := newResolver(t)
		fio.Close() // every read fails with ErrClosed
		err := r.resolve(ctx, path, mine, lost)
		if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, fileio.ErrClosed) || errors.Is(err, fileio.ErrExist) {
			t.Fatalf("resolve: %v, want ErrOutcomeUnknown wrapping the read error", err)
		}
		want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
		if !slices.Equal(*waits, want) {
			t.Errorf("waits %v, want %v", *waits, want)
		}
	})
	t.Run("known outcome passes through", func(t *testing.T) {
		r, _, waits := newResolver(t)
		denied := errors.New("denied")
		if err := r.resolve(ctx, path, mine, denied); err != denied || len(*waits) != 0 {
			t.Fatalf("resolve: %v after %d waits, want the error itself at once", err, len(*waits))
		}
	})
}
