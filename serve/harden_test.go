package serve_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-go/paimon/realtime"
	"github.com/paimon-go/paimon/serve"
)

// selfSigned returns a server certificate for 127.0.0.1 and a pool that
// trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "paimon-serve-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// TestServeTLS: a TLS server answers a client that trusts its certificate;
// a plaintext client and a client that does not trust it fail; the service
// file records a grpc+tls location.
func TestServeTLS(t *testing.T) {
	ctx := context.Background()
	cert, pool := selfSigned(t)
	path := newTable(t, true, nil)
	srv, c := start(t, path, serve.Config{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}},
		serve.WithTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}))
	rec, err := serve.ReadService(ctx, openTable(t, path).FileIO())
	if err != nil || rec.Location != srv.Location() || !strings.HasPrefix(rec.Location, "grpc+tls://") {
		t.Fatalf("service %+v %v, location %s", rec, err, srv.Location())
	}
	put(t, c, kn([]int32{1, 2}, []int64{10, 20}, nil))
	if got := rowsOf(t, collect(t, c.Read(ctx, serve.Ticket{})), true); !slices.Equal(got, []string{"1 10", "2 20"}) {
		t.Errorf("tls read %v", got)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	plain, err := serve.Dial(strings.Replace(srv.Location(), "grpc+tls", "grpc+tcp", 1), token)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Commit(cctx); status.Code(err) != codes.Unavailable {
		t.Errorf("plaintext client of a TLS server: %v, want Unavailable", err)
	}
	untrusted, err := serve.Dial(srv.Location(), token)
	if err != nil {
		t.Fatal(err)
	}
	defer untrusted.Close()
	if _, err := untrusted.Commit(cctx); status.Code(err) != codes.Unavailable {
		t.Errorf("client without the root: %v, want Unavailable", err)
	}
}

// TestServeLimits: a batch above MaxMessageBytes is refused with
// ResourceExhausted and nothing of it is stored; a client that cancels a
// real-time stream after its first batch leaves no read view pinned (a
// commit then reclaims every row from memory).
func TestServeLimits(t *testing.T) {
	ctx := context.Background()
	path := newTable(t, true, nil)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	srv, c := start(t, path, serve.Config{MaxMessageBytes: 64 << 10, Allocator: alloc})
	big := make([]int32, 20000)
	ns := make([]int64, len(big))
	for i := range big {
		big[i], ns[i] = int32(i), int64(i)
	}
	rec := kn(big, ns, nil)
	_, err := c.Put(ctx, rec)
	rec.Release()
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("oversized put: %v, want ResourceExhausted", err)
	}
	if m := srv.Metrics()[realtime.MetricTotalRowCount]; m != 0 {
		t.Errorf("rows held after a refused put: %d", m)
	}
	// 40 batches of 100 rows: the real-time stream has many messages.
	for b := range 40 {
		ks, vs := make([]int32, 100), make([]int64, 100)
		for i := range ks {
			ks[i], vs[i] = int32(b*100+i), int64(b)
		}
		put(t, c, kn(ks, vs, nil))
	}
	cctx, cancel := context.WithCancel(ctx)
	read := 0
	for _, err := range serve.RawClient(c).GetFirst(cctx, serve.Ticket{Kind: serve.KindRealtime}.Encode()) {
		if err != nil {
			t.Fatal(err)
		}
		read++
		break
	}
	cancel()
	if read != 1 {
		t.Fatalf("read %d messages", read)
	}
	if _, err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alloc.CurrentAlloc() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if m := srv.Metrics(); m[realtime.MetricTotalRowCount] != 0 || alloc.CurrentAlloc() != 0 {
		t.Errorf("after the commit: %v, %d bytes still allocated (a leaked view?)", m, alloc.CurrentAlloc())
	}
	if got := len(rowsOf(t, collect(t, c.Read(ctx, serve.Ticket{})), false)); got != 4000 {
		t.Errorf("rows after the commit: %d, want 4000", got)
	}
}

// TestServeBackpressure: with a small memory limit, puts beyond it commit
// what the server holds first, so memory stays bounded and every row lands
// exactly once.
func TestServeBackpressure(t *testing.T) {
	ctx := context.Background()
	path := newTable(t, false, map[string]string{"bucket-key": "k"})
	const limit = 64 << 10
	srv, c := start(t, path, serve.Config{MaxMemoryBytes: limit})
	peak := int64(0)
	for b := range 30 {
		ks, vs := make([]int32, 1000), make([]int64, 1000)
		for i := range ks {
			ks[i], vs[i] = int32(b*1000+i), int64(b)
		}
		put(t, c, kn(ks, vs, nil))
		m := srv.Metrics()
		peak = max(peak, m[realtime.MetricTotalMemoryBytes])
	}
	p := mustProgress(t, c)
	t.Logf("peak %d bytes held, %d snapshots", peak, p.SnapshotID)
	if p.SnapshotID < 2 {
		t.Errorf("%d snapshots: backpressure never committed", p.SnapshotID)
	}
	// At most one batch (about 12 KiB of Arrow buffers) above the limit.
	if peak > limit+32<<10 {
		t.Errorf("peak held %d bytes, limit %d", peak, limit)
	}
	rows := rowsOf(t, collect(t, c.Read(ctx, serve.Ticket{})), false)
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r] = true
	}
	if len(rows) != 30000 || len(seen) != 30000 {
		t.Errorf("%d rows, %d distinct, want 30000", len(rows), len(seen))
	}
}

// TestServeDiscovery: GetFlightInfo and GetSchema describe each ticket's
// stream (projected union, real-time transport schema) and hand back the
// ticket; ListActions lists the three actions.
func TestServeDiscovery(t *testing.T) {
	ctx := context.Background()
	_, c := start(t, newTable(t, true, nil), serve.Config{})
	raw := serve.RawClient(c)
	for _, tc := range []struct {
		cmd  []byte
		want []string
	}{
		{nil, []string{"k", "n"}},
		{serve.Ticket{Columns: []string{"n"}}.Encode(), []string{"n"}},
		{serve.Ticket{Kind: serve.KindRealtime}.Encode(), []string{"_VALUE_KIND", "_SEQUENCE_NUMBER", "_REALTIME_OFFSET", "k", "n"}},
	} {
		info, sc, tk, err := raw.Info(ctx, tc.cmd)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(info, tc.want) || !slices.Equal(sc, tc.want) {
			t.Errorf("%s: info %v schema %v, want %v", tc.cmd, info, sc, tc.want)
		}
		asked, _ := serve.DecodeTicket(tc.cmd)
		if back, err := serve.DecodeTicket(tk); err != nil || string(back.Encode()) != string(asked.Encode()) {
			t.Errorf("%s: endpoint ticket %s (%v)", tc.cmd, tk, err)
		}
	}
	if _, _, _, err := raw.Info(ctx, []byte(`{"columns":["nosuch"]}`)); status.Code(err) != codes.InvalidArgument {
		t.Errorf("unknown column: %v", err)
	}
	acts, err := raw.Actions(ctx)
	if err != nil || !slices.Equal(acts, []string{"lookup", "commit", "progress"}) {
		t.Errorf("actions %v %v", acts, err)
	}
}
