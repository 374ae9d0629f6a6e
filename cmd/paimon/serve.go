package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-go/paimon"
	"github.com/paimon-go/paimon/fileio"
	"github.com/paimon-go/paimon/serve"
)

// tokenEnv is the environment variable of the bearer token of paimon serve
// and of the commands that talk to it.
const tokenEnv = "PAIMON_SERVE_TOKEN"

// serverError adds a hint to a call the server refused for its token.
// unreachable wraps an error of a call to the server svc of table t that
// never reached it (gRPC Unavailable or DeadlineExceeded: nothing listens at
// the recorded location, or it does not answer) in
// serve.ErrProviderUnavailable, naming the location and the service file.
func unreachable(err error, t *paimon.Table, svc serve.Service) error {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return fmt.Errorf("%w: no answer from %s, recorded in %s/%s (is paimon serve running?): %w",
			serve.ErrProviderUnavailable, svc.Location, fileio.Redact(t.FileIO().URL()), serve.ServicePath, err)
	}
	return err
}

func serverError(err error) error {
	if status.Code(err) == codes.Unauthenticated {
		return fmt.Errorf("%w (set $%s to the server's token)", err, tokenEnv)
	}
	return err
}

// serveFlags are the flags of paimon serve.
type serveFlags struct {
	listen, token, cert, key, interval, advertise string
	maxBytes                                      int
	maxMemory                                     int64
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "serve URL --listen HOST:PORT",
		Short: "Serve a real-time table over Arrow Flight until SIGINT or SIGTERM",
		Long: `Serve a real-time table (realtime.enabled = true, a fixed bucket count) over
Arrow Flight: DoPut ingests Arrow batches (acknowledged once the rows are
queryable), DoGet reads committed files and memory together (ticket
{"kind":"union","columns":[...],"where":"..."}) or only the rows above the
committed snapshot (ticket {"kind":"realtime"}), and the actions lookup,
commit and progress look up primary keys, commit now and report the committed
progress. Rows are committed every --commit-interval and at shutdown.

Every call must carry "authorization: Bearer <token>"; the token comes from
--token or $` + tokenEnv + ` and is required. --tls-cert and --tls-key serve
over TLS. The server records its address in the table folder
(service/service-realtime-flight), where "paimon lookup --realtime" and
"paimon cat --realtime" of tables with realtime.provider = flight find it.
It prints "serving <location>" once it accepts calls.`,
		Args: exactlyOneURL,
		RunE: onTable(func(cmd *cobra.Command, args []string) error {
			if f.token == "" {
				f.token = os.Getenv(tokenEnv)
			}
			if f.token == "" {
				return usageError{fmt.Errorf("a bearer token is required: --token or $%s", tokenEnv)}
			}
			if (f.cert == "") != (f.key == "") {
				return usageError{errors.New("--tls-cert and --tls-key go together")}
			}
			d, err := durationFlag("commit-interval", f.interval)
			if err != nil {
				return err
			}
			if d <= 0 {
				return usageError{fmt.Errorf("--commit-interval must be positive, got %q", f.interval)}
			}
			if f.maxMemory <= 0 {
				return usageError{fmt.Errorf("--max-memory-bytes must be positive, got %d", f.maxMemory)}
			}
			if f.maxBytes <= 0 {
				return usageError{fmt.Errorf("--max-message-bytes must be positive, got %d", f.maxBytes)}
			}
			interval = d
			return nil
		}, func(ctx context.Context, cmd *cobra.Command, t *paimon.Table, _ []string) error {
			cfg := serve.Config{Token: f.token, CommitInterval: interval, MaxMessageBytes: f.maxBytes, Advertise: f.advertise, MaxMemoryBytes: f.maxMemory,
				Logger: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))}
			if f.cert != "" {
				pair, err := tls.LoadX509KeyPair(f.cert, f.key)
				if err != nil {
					return usageError{fmt.Errorf("--tls-cert/--tls-key: %w", err)}
				}
				cfg.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
			}
			srv, err := serve.New(t, cfg)
			if err != nil {
				return err
			}
			if err := srv.Start(f.listen); err != nil {
				_ = srv.Shutdown(context.Background())
				if errors.Is(err, serve.ErrTableServed) {
					return err
				}
				return usageError{fmt.Errorf("--listen %s: %w", f.listen, err)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "serving %s\n", srv.Location())
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			err = srv.Shutdown(sctx)
			return err
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8815", "address to listen on")
	fl.StringVar(&f.token, "token", "", "bearer token every call must carry (default $"+tokenEnv+")")
	fl.StringVar(&f.cert, "tls-cert", "", "TLS certificate file (PEM); with --tls-key serves over TLS")
	fl.StringVar(&f.key, "tls-key", "", "TLS private key file (PEM)")
	fl.StringVar(&f.interval, "commit-interval", "1s", "how often to commit the rows held, in "+durationHelp)
	fl.IntVar(&f.maxBytes, "max-message-bytes", serve.DefaultMaxMessageBytes, "largest message accepted (a DoPut batch, an action body)")
	fl.Int64Var(&f.maxMemory, "max-memory-bytes", serve.DefaultMaxMemoryBytes, "rows held in memory above this commit first (backpressure on DoPut)")
	fl.StringVar(&f.advertise, "advertise", "", "host:port recorded for other processes (default: the listen address)")
	return cmd
}
