package fileio_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/fileio/fileiotest"
	"github.com/paimon-go/paimon/testenv"
)

func TestMain(m *testing.M) {
	fileiotest.ChildMain()
	testenv.Main(m)
}

func openURL(t *testing.T, url string) *fileio.FileIO {
	t.Helper()
	fio, err := fileio.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("Open(%q): %v", url, err)
	}
	return fio
}

func TestConformanceFile(t *testing.T) {
	fileiotest.RunConformance(t, func(t *testing.T) *fileio.FileIO {
		return openURL(t, "file://"+t.TempDir()+"/warehouse")
	})
}

func TestConformanceMem(t *testing.T) {
	fileiotest.RunConformance(t, func(t *testing.T) *fileio.FileIO {
		return openURL(t, "mem://")
	})
}

func TestConformanceMinIO(t *testing.T) {
	fileiotest.RunConformance(t, func(t *testing.T) *fileio.FileIO {
		return openURL(t, testenv.MinIO(t))
	})
}

// TestConformanceMinIOPrefix runs the suite below a key prefix of the bucket,
// as a warehouse at s3://bucket/warehouse is.
func TestConformanceMinIOPrefix(t *testing.T) {
	fileiotest.RunConformance(t, func(t *testing.T) *fileio.FileIO {
		url := testenv.MinIO(t)
		bucket, query, _ := strings.Cut(url, "?")
		return openURL(t, bucket+"/warehouse/db?"+query)
	})
}

func TestConformanceFakeGCS(t *testing.T) {
	fileiotest.RunConformance(t, func(t *testing.T) *fileio.FileIO {
		return openURL(t, testenv.FakeGCS(t))
	})
}

func TestConformanceAzurite(t *testing.T) {
	fileiotest.RunConformance(t, func(t *testing.T) *fileio.FileIO {
		return openURL(t, testenv.Azurite(t))
	})
}

// TestConformanceAzuritePrefix runs the suite below a key prefix of the
// container.
func TestConformanceAzuritePrefix(t *testing.T) {
	fileiotest.RunConformance(t, func(t *testing.T) *fileio.FileIO {
		url := testenv.Azurite(t)
		container, query, _ := strings.Cut(url, "?")
		return openURL(t, container+"/warehouse/db?"+query)
	})
}
