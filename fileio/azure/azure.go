// Package azure makes package fileio open azblob://CONTAINER/PREFIX URLs
// (Azure Blob Storage) when imported, as gocloud.dev/blob/azureblob
// registers its URL opener:
//
//	import _ "github.com/paimon-go/paimon/fileio/azure"
//
// Without it, fileio.Open refuses azblob:// URLs with fileio.ErrInvalidURL,
// and a program that does not use the store does not link the Azure SDK.
//
// The account and credentials come from the environment as
// gocloud.dev/blob/azureblob reads them (AZURE_STORAGE_ACCOUNT with
// AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_CONNECTION_STRING,
// or azidentity's default chain), never from the URL; the query may name
// storage_account, domain, protocol and localemu (for Azurite:
// ?localemu=true&protocol=http&domain=127.0.0.1:10000). Open fails with
// fileio.ErrNoCredentials when no account or credential is found.
package azure

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"

	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/fileio/internal/driver"
)

func init() {
	driver.Register("azblob", driver.Driver{Open: open, Response: response})
}

// open is openAzure as a driver.
func open(ctx context.Context, host string, q url.Values, r driver.Retry) (driver.Buckets, error) {
	b, streams, err := openAzure(ctx, host, q, r)
	return driver.Buckets{Bucket: b, Streams: streams}, err
}

// response reads an Azure SDK response error: its text is the whole HTTP
// exchange (request line, headers, XML body), so fileio keeps its status
// and error code only.
func response(err error) (driver.Response, bool) {
	var aerr *azcore.ResponseError
	if !errors.As(err, &aerr) {
		return driver.Response{}, false
	}
	return driver.Response{Status: aerr.StatusCode, Code: aerr.ErrorCode,
		Text:     fmt.Sprintf("azure: HTTP %d %s", aerr.StatusCode, aerr.ErrorCode),
		NoBucket: aerr.ErrorCode == "ContainerNotFound"}, true
}

// openAzure opens the Azure Blob Storage container named by an
// azblob://CONTAINER URL. The service URL and credentials come from the
// environment as gocloud's azureblob URL opener reads them
// (AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY, or AZURE_STORAGE_SAS_TOKEN,
// or AZURE_STORAGE_CONNECTION_STRING, otherwise azidentity's default
// credential chain; AZURE_STORAGE_DOMAIN, AZURE_STORAGE_PROTOCOL,
// AZURE_STORAGE_IS_LOCAL_EMULATOR), overridden by the query parameters
// storage_account, domain, protocol and localemu; others are an error.
//
// Unlike the URL opener, the client of the first bucket returned does not
// retry by itself, so fileio's retries are the only ones and a
// create-if-absent attempt whose answer was lost is seen as such (the
// SDK's own retry of a conditional PUT would turn our win into "exists").
// The second bucket, for streamed writes, retries each request (a block or
// the block list) as policy says, replaying its buffered body.
func openAzure(ctx context.Context, containerName string, q url.Values, policyR driver.Retry) (*blob.Bucket, *blob.Bucket, error) {
	opts := azureblob.NewDefaultServiceURLOptions()
	for key, vals := range q {
		if len(vals) != 1 {
			return nil, nil, fmt.Errorf("%w: %s given %d times", fileio.ErrInvalidURL, key, len(vals))
		}
		v := vals[0]
		switch key {
		case "storage_account":
			opts.AccountName = v
		case "domain":
			opts.StorageDomain = v
		case "protocol":
			opts.Protocol = v
		case "localemu":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: localemu=%q", fileio.ErrInvalidURL, v)
			}
			opts.IsLocalEmulator = b
		default:
			return nil, nil, fmt.Errorf("%w: unknown query parameter %q (azblob URLs take storage_account, domain, protocol, localemu)", fileio.ErrInvalidURL, key)
		}
	}
	if opts.AccountName == "" && os.Getenv("AZURE_STORAGE_CONNECTION_STRING") == "" {
		return nil, nil, fmt.Errorf("%w: no Azure storage account (set AZURE_STORAGE_ACCOUNT or add storage_account=NAME to the URL)", fileio.ErrNoCredentials)
	}
	svc, err := azureblob.NewServiceURL(opts)
	if err != nil && os.Getenv("AZURE_STORAGE_CONNECTION_STRING") == "" {
		return nil, nil, fmt.Errorf("%w: %w", fileio.ErrInvalidURL, err)
	}
	containerURL, err := url.JoinPath(string(svc), containerName)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", fileio.ErrInvalidURL, err)
	}
	newClient, err := azureClientMaker(opts.AccountName, containerURL, containerName)
	if err != nil {
		return nil, nil, err
	}
	open := func(retry policy.RetryOptions) (*blob.Bucket, error) {
		c, err := newClient(&container.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: retry}})
		if err != nil {
			return nil, err
		}
		return azureblob.OpenBucket(ctx, c, nil)
	}
	plain, err := open(policy.RetryOptions{MaxRetries: -1})
	if err != nil {
		return nil, nil, err
	}
	streams, err := open(policy.RetryOptions{
		MaxRetries:    int32(policyR.Attempts - 1),
		RetryDelay:    policyR.Base,
		MaxRetryDelay: policyR.Max,
	})
	if err != nil {
		plain.Close()
		return nil, nil, err
	}
	return plain, streams, nil
}

// azureClientMaker picks the credential as gocloud's azureblob does: a
// shared key (AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY), a SAS token in
// the service URL (AZURE_STORAGE_SAS_TOKEN), a connection string
// (AZURE_STORAGE_CONNECTION_STRING), else azidentity's default chain.
func azureClientMaker(account, containerURL, containerName string) (func(*container.ClientOptions) (*container.Client, error), error) {
	key := os.Getenv("AZURE_STORAGE_KEY")
	switch conn := os.Getenv("AZURE_STORAGE_CONNECTION_STRING"); {
	case account != "" && key != "":
		cred, err := container.NewSharedKeyCredential(account, key)
		if err != nil {
			return nil, fmt.Errorf("%w: AZURE_STORAGE_KEY: %v", fileio.ErrNoCredentials, err)
		}
		return func(o *container.ClientOptions) (*container.Client, error) {
			return container.NewClientWithSharedKeyCredential(containerURL, cred, o)
		}, nil
	case os.Getenv("AZURE_STORAGE_SAS_TOKEN") != "":
		return func(o *container.ClientOptions) (*container.Client, error) {
			return container.NewClientWithNoCredential(containerURL, o)
		}, nil
	case conn != "":
		return func(o *container.ClientOptions) (*container.Client, error) {
			return container.NewClientFromConnectionString(conn, containerName, o)
		}, nil
	}
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return nil, fmt.Errorf("%w: Azure default credential: %v (set AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or AZURE_STORAGE_CONNECTION_STRING)", fileio.ErrNoCredentials, err)
	}
	return func(o *container.ClientOptions) (*container.Client, error) {
		return container.NewClient(containerURL, cred, o)
	}, nil
}
