package fileio

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
)

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
func openAzure(ctx context.Context, containerName string, q url.Values, policyR retryPolicy) (*blob.Bucket, *blob.Bucket, error) {
	opts := azureblob.NewDefaultServiceURLOptions()
	for key, vals := range q {
		if len(vals) != 1 {
			return nil, nil, fmt.Errorf("%w: %s given %d times", ErrInvalidURL, key, len(vals))
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
				return nil, nil, fmt.Errorf("%w: localemu=%q", ErrInvalidURL, v)
			}
			opts.IsLocalEmulator = b
		default:
			return nil, nil, fmt.Errorf("%w: unknown query parameter %q (azblob URLs take storage_account, domain, protocol, localemu)", ErrInvalidURL, key)
		}
	}
	if opts.AccountName == "" && os.Getenv("AZURE_STORAGE_CONNECTION_STRING") == "" {
		return nil, nil, fmt.Errorf("%w: no Azure storage account (set AZURE_STORAGE_ACCOUNT or add storage_account=NAME to the URL)", ErrNoCredentials)
	}
	svc, err := azureblob.NewServiceURL(opts)
	if err != nil && os.Getenv("AZURE_STORAGE_CONNECTION_STRING") == "" {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	containerURL, err := url.JoinPath(string(svc), containerName)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
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
		MaxRetries:    int32(policyR.attempts - 1),
		RetryDelay:    policyR.base,
		MaxRetryDelay: policyR.max,
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
			return nil, fmt.Errorf("%w: AZURE_STORAGE_KEY: %v", ErrNoCredentials, err)
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
		return nil, fmt.Errorf("%w: Azure default credential: %v (set AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or AZURE_STORAGE_CONNECTION_STRING)", ErrNoCredentials, err)
	}
	return func(o *container.ClientOptions) (*container.Client, error) {
		return container.NewClient(containerURL, cred, o)
	}, nil
}

// azureSecrets returns the secrets of the Azure credentials in the
// environment, as they may appear in the SDK's errors (which repeat a
// request's URL, SAS query included): the account key, and the secret
// values of a SAS token (AZURE_STORAGE_SAS_TOKEN, or the
// SharedAccessSignature of AZURE_STORAGE_CONNECTION_STRING) both decoded
// and query-escaped.
func azureSecrets() []string {
	var out []string
	add := func(s string) {
		if len(s) >= minSecret {
			out = append(out, s)
		}
	}
	add(os.Getenv("AZURE_STORAGE_KEY"))
	sas := []string{os.Getenv("AZURE_STORAGE_SAS_TOKEN")}
	for part := range strings.SplitSeq(os.Getenv("AZURE_STORAGE_CONNECTION_STRING"), ";") {
		k, v, _ := strings.Cut(part, "=")
		switch strings.ToLower(k) {
		case "accountkey":
			add(v)
		case "sharedaccesssignature":
			sas = append(sas, v)
		}
	}
	for _, t := range sas {
		if t == "" {
			continue
		}
		for _, s := range secretsOf("azblob://c/?" + strings.TrimPrefix(t, "?")) {
			add(s)
			add(url.QueryEscape(s))
		}
	}
	return out
}
