package testenv

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// Azurite's well-known development account (the same in every install; it
// guards nothing).
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Azurite returns the URL
// "azblob://CONTAINER?localemu=true&protocol=http&domain=127.0.0.1:PORT" of
// a new, empty container on the test binary's Azurite blob service,
// starting it on first use, and sets AZURE_STORAGE_ACCOUNT and
// AZURE_STORAGE_KEY for the test (t.Setenv: not in parallel tests), which
// child processes inherit. Without the emulator the test is skipped, or
// fails when CI=true; scripts/install-azurite.sh installs it. The
// package's TestMain must call Main.
func Azurite(t testing.TB) string {
	t.Helper()
	s := shared(t, &servers.azurite, "azurite",
		func() (string, error) {
			return findBinary("AZURITE_BIN", "azurite-blob", "azurite/node_modules/.bin/azurite-blob")
		},
		isCI(), "install it with: ./scripts/install-azurite.sh",
		startAzurite)
	name := bucketName()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cred, err := container.NewSharedKeyCredential(AzuriteAccount, AzuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := container.NewClientWithSharedKeyCredential(
		fmt.Sprintf("http://%s/%s/%s", s.addr, AzuriteAccount, name), cred,
		&container.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, nil); err != nil {
		t.Fatalf("testenv: create container %s on Azurite: %v", name, err)
	}
	t.Setenv("AZURE_STORAGE_ACCOUNT", AzuriteAccount)
	t.Setenv("AZURE_STORAGE_KEY", AzuriteKey)
	return fmt.Sprintf("azblob://%s?localemu=true&protocol=http&domain=%s", name, s.addr)
}

// startAzurite starts Azurite's blob service keeping its data in the
// server's directory, without telemetry or access log.
func startAzurite(bin string) (*server, error) {
	return start("azurite", func(dir string, port int) (*exec.Cmd, error) {
		return exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port),
			"--location", dir, "--silent", "--disableTelemetry", "--skipApiVersionCheck", "--loose"), nil
	}, anyStatus+"/"+AzuriteAccount+"?comp=list")
}
