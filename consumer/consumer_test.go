package consumer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paimon-go/paimon/consumer"
	"github.com/paimon-go/paimon/fileio"
)

func open(t *testing.T) (*fileio.FileIO, string) {
	t.Helper()
	dir := t.TempDir()
	fio, err := fileio.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fio.Close() })
	return fio, dir
}

// TestWriteBytes: the file holds exactly what Java's Consumer.toJson writes.
func TestWriteBytes(t *testing.T) {
	ctx := context.Background()
	fio, dir := open(t)
	m := consumer.New(fio, "")
	if err := m.Write(ctx, "c1", 42); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "consumer", "consumer-c1"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"nextSnapshot\" : 42\n}"; string(got) != want {
		t.Fatalf("file = %q, want %q", got, want)
	}
	b := consumer.New(fio, "dev")
	if err := b.Write(ctx, "c1", 7); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "branch", "branch-dev", "consumer", "consumer-c1")); err != nil {
		t.Fatalf("branch consumer: %v", err)
	}
	n, ok, err := m.Read(ctx, "c1")
	if n != 42 || !ok || err != nil {
		t.Fatalf("Read main = %d %v %v, want 42 true", n, ok, err)
	}
	n, ok, err = b.Read(ctx, "c1")
	if n != 7 || !ok || err != nil {
		t.Fatalf("Read dev = %d %v %v, want 7 true", n, ok, err)
	}
	if err := m.Write(ctx, "c1", 43); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := m.Read(ctx, "c1"); n != 43 {
		t.Fatalf("after overwrite Read = %d, want 43", n)
	}
}

// TestReadJavaForms: compact and pretty JSON, unknown fields ignored.
func TestReadJavaForms(t *testing.T) {
	for in, want := range map[string]int64{
		`{"nextSnapshot":5}`:                             5,
		"{\n  \"nextSnapshot\" : 9223372036854775807\n}": 9223372036854775807,
		`{"nextSnapshot": 3, "other": "x"}`:              3,
	} {
		got, err := consumer.Decode("f", []byte(in))
		if err != nil || got != want {
			t.Errorf("Decode(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestListMinDelete(t *testing.T) {
	ctx := context.Background()
	fio, _ := open(t)
	m := consumer.New(fio, "")
	if _, ok, err := m.MinNextSnapshot(ctx); ok || err != nil {
		t.Fatalf("MinNextSnapshot of no consumers = %v %v", ok, err)
	}
	for id, n := range map[string]int64{"a": 9, "b": 4, "c": 12} {
		if err := m.Write(ctx, id, n); err != nil {
			t.Fatal(err)
		}
	}
	all, err := m.List(ctx)
	if err != nil || !reflect.DeepEqual(all, map[string]int64{"a": 9, "b": 4, "c": 12}) {
		t.Fatalf("List = %v, %v", all, err)
	}
	if n, ok, err := m.MinNextSnapshot(ctx); n != 4 || !ok || err != nil {
		t.Fatalf("MinNextSnapshot = %d %v %v, want 4", n, ok, err)
	}
	if err := m.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := m.Delete(ctx, "b"); err != nil {
		t.Fatalf("second Delete: %v", err)
	}
	if _, ok, err := m.Read(ctx, "b"); ok || err != nil {
		t.Fatalf("Read deleted = %v %v", ok, err)
	}
	if n, _, _ := m.MinNextSnapshot(ctx); n != 9 {
		t.Fatalf("MinNextSnapshot after delete = %d, want 9", n)
	}
}

func TestCorrupt(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []string{``, `{"next":1}`, `{"nextSnapshot":"x"}`, `{"nextSnapshot":1.5}`, `{"nextSnapshot":1}{}`, `[1]`} {
		fio, _ := open(t)
		if err := fio.WriteFile(ctx, "consumer/consumer-x", []byte(bad)); err != nil {
			t.Fatal(err)
		}
		m := consumer.New(fio, "")
		_, _, err := m.Read(ctx, "x")
		if !errors.Is(err, consumer.ErrCorrupt) || !strings.Contains(err.Error(), "consumer/consumer-x") {
			t.Errorf("Read(%q) = %v, want ErrCorrupt naming consumer/consumer-x", bad, err)
		}
		if _, _, err := m.MinNextSnapshot(ctx); !errors.Is(err, consumer.ErrCorrupt) {
			t.Errorf("MinNextSnapshot(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

func TestInvalidID(t *testing.T) {
	fio, _ := open(t)
	m := consumer.New(fio, "")
	for _, id := range []string{"", ".", "..", "a/b"} {
		if err := m.Write(context.Background(), id, 1); !errors.Is(err, consumer.ErrInvalidID) {
			t.Errorf("Write(%q) = %v, want ErrInvalidID", id, err)
		}
	}
}

// TestExpire: consumers whose file is older than the cut-off are deleted.
func TestExpire(t *testing.T) {
	ctx := context.Background()
	fio, dir := open(t)
	m := consumer.New(fio, "")
	for _, id := range []string{"old", "new"} {
		if err := m.Write(ctx, id, 3); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	old := now.Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "consumer", "consumer-old"), old, old); err != nil {
		t.Fatal(err)
	}
	got, err := m.Expire(ctx, now.Add(-time.Hour))
	if err != nil || !reflect.DeepEqual(got, []string{"old"}) {
		t.Fatalf("Expire = %v, %v; want [old]", got, err)
	}
	all, _ := m.List(ctx)
	if !reflect.DeepEqual(all, map[string]int64{"new": 3}) {
		t.Fatalf("List after Expire = %v", all)
	}
}
