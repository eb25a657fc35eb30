package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// testPKI is a CA with a server and a client certificate, as PEM files.
type testPKI struct {
	dir                                        string
	caFile, certFile, keyFile, cliCert, cliKey string
	pool                                       *x509.CertPool
	client                                     tls.Certificate
}

func newPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir(), pool: x509.NewCertPool()}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "HotKV test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	p.pool.AddCert(ca)
	p.caFile = p.write(t, "ca.crt", "CERTIFICATE", caDER)
	issue := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string, tls.Certificate) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, _ := x509.MarshalECPrivateKey(key)
		cf := p.write(t, name+".crt", "CERTIFICATE", der)
		kf := p.write(t, name+".key", "EC PRIVATE KEY", keyDER)
		pair, err := tls.LoadX509KeyPair(cf, kf)
		if err != nil {
			t.Fatal(err)
		}
		return cf, kf, pair
	}
	p.certFile, p.keyFile, _ = issue("server", 2, x509.ExtKeyUsageServerAuth)
	// The client's certificate serves both ways, so that a test can make it
	// the server's.
	p.cliCert, p.cliKey, p.client = issue("client", 3, x509.ExtKeyUsageAny)
	return p
}

func (p *testPKI) write(t *testing.T, name, typ string, der []byte) string {
	f := filepath.Join(p.dir, name)
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// args are the directives of a TLS server with this PKI.
func (p *testPKI) args(port int) []string {
	return []string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", p.certFile, "--tls-key-file", p.keyFile, "--tls-ca-cert-file", p.caFile}
}

func (p *testPKI) clientConfig(withCert bool) *tls.Config {
	c := &tls.Config{RootCAs: p.pool, ServerName: "127.0.0.1"}
	if withCert {
		c.Certificates = []tls.Certificate{p.client}
	}
	return c
}

// A TLS port serves the same data as the plain one, to clients that
// present a certificate the CA signed (tls-auth-clients yes, the default).
func TestTLS(t *testing.T) {
	p := newPKI(t)
	s := harness.Start(t, p.args(harness.FreePort(t))...)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: s.TLSAddr().String(), TLSConfig: p.clientConfig(true)})
	defer c.Close()
	if err := c.Set(ctx, "k", "over tls", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Client(t).Get(ctx, "k").Result(); v != "over tls" {
		t.Fatalf("plain client reads %q", v)
	}
	pipe := c.Pipeline()
	for i := range 100 {
		pipe.Incr(ctx, "n"+strconv.Itoa(i%3))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Get(ctx, "n0").Int(); n != 34 {
		t.Fatalf("pipelined INCRs over TLS: n0 = %d", n)
	}
	big := strings.Repeat("x", 1<<20) // replies larger than a TLS record
	c.Set(ctx, "big", big, 0)
	if v, _ := c.Get(ctx, "big").Result(); v != big {
		t.Fatalf("1 MiB value over TLS: %d bytes back", len(v))
	}
	sub := c.Subscribe(ctx, "ch")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	s.Client(t).Publish(ctx, "ch", "hello")
	if m, err := sub.ReceiveMessage(ctx); err != nil || m.Payload != "hello" {
		t.Fatalf("pub/sub over TLS: %v %v", m, err)
	}
	if line, _ := c.Do(ctx, "CLIENT", "INFO").Text(); !strings.Contains(line, " fd=") || strings.Contains(line, " fd=-1 ") {
		t.Errorf("CLIENT INFO of a TLS client: %s", line)
	}
	// Without a client certificate the handshake fails.
	bare := redis.NewClient(&redis.Options{Addr: s.TLSAddr().String(), TLSConfig: p.clientConfig(false), MaxRetries: -1})
	defer bare.Close()
	if err := bare.Ping(ctx).Err(); err == nil {
		t.Fatal("a client without a certificate was served with tls-auth-clients yes")
	}
	// A plain client on the TLS port gets nothing served.
	plain := redis.NewClient(&redis.Options{Addr: s.TLSAddr().String(), MaxRetries: -1, ReadTimeout: time.Second})
	defer plain.Close()
	if err := plain.Ping(ctx).Err(); err == nil {
		t.Fatal("plain RESP was served on the TLS port")
	}
}

func TestTLSAuthClientsAndProtocols(t *testing.T) {
	p := newPKI(t)
	ctx := context.Background()
	for _, tc := range []struct {
		args   []string
		client *tls.Config
		ok     bool
	}{
		{[]string{"--tls-auth-clients", "no"}, p.clientConfig(false), true},
		{[]string{"--tls-auth-clients", "optional"}, p.clientConfig(false), true},
		{[]string{"--tls-auth-clients", "optional"}, p.clientConfig(true), true},
		{[]string{"--tls-protocols", "TLSv1.3"}, &tls.Config{RootCAs: p.pool, Certificates: []tls.Certificate{p.client}, MaxVersion: tls.VersionTLS12}, false},
		{[]string{"--tls-protocols", "TLSv1.2", "--tls-ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256"}, p.clientConfig(true), true},
		{[]string{"--tls-protocols", "TLSv1.2", "--tls-ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256"},
			&tls.Config{RootCAs: p.pool, Certificates: []tls.Certificate{p.client}, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}}, false},
	} {
		s := harness.Start(t, append(p.args(harness.FreePort(t)), tc.args...)...)
		c := redis.NewClient(&redis.Options{Addr: s.TLSAddr().String(), TLSConfig: tc.client, MaxRetries: -1})
		err := c.Ping(ctx).Err()
		c.Close()
		if (err == nil) != tc.ok {
			t.Errorf("%v: PING error %v, want success %v", tc.args, err, tc.ok)
		}
	}
}

// Bad TLS settings stop the server at start-up, and a CONFIG SET that would
// break TLS is refused; a good one (a renewed certificate) applies to the
// next connection.
func TestTLSConfigErrors(t *testing.T) {
	p := newPKI(t)
	for _, args := range [][]string{
		{"--tls-port", "1"},
		{"--tls-port", "1", "--tls-cert-file", p.certFile, "--tls-key-file", p.keyFile},
		{"--tls-port", "1", "--tls-cert-file", p.certFile, "--tls-key-file", p.caFile, "--tls-auth-clients", "no"},
		{"--tls-port", "1", "--tls-cert-file", p.certFile, "--tls-key-file", p.keyFile, "--tls-auth-clients", "no", "--tls-protocols", "SSLv3"},
		{"--tls-port", "1", "--tls-cert-file", p.certFile, "--tls-key-file", p.keyFile, "--tls-auth-clients", "no", "--tls-ciphers", "DEFAULT:!MEDIUM"},
	} {
		out, err := exec.Command(harness.Binary(t), append(args, "--port", strconv.Itoa(harness.FreePort(t)))...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "TLS") {
			t.Errorf("%v: started or said %q", args, out)
		}
	}
	s := harness.Start(t, p.args(harness.FreePort(t))...)
	r := s.Raw(t)
	r.Expect(harness.Err("ERR CONFIG SET failed (possibly related to argument 'tls-key-file') - Unable to update TLS configuration: tls: private key does not match public key"),
		"CONFIG", "SET", "tls-key-file", p.cliKey)
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "tls-cert-file", p.cliCert, "tls-key-file", p.cliKey)
	conn, err := tls.Dial("tcp", s.TLSAddr().String(), p.clientConfig(true))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if cn := conn.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != "client" {
		t.Errorf("after CONFIG SET the server presents %q", cn)
	}
}

// redis-cli talks to HotKV's TLS port as to Redis's.
func TestTLSRedisCli(t *testing.T) {
	cli := harness.RedisCLI(t)
	p := newPKI(t)
	s := harness.Start(t, p.args(harness.FreePort(t))...)
	host, port, _ := net.SplitHostPort(s.TLSAddr().String())
	out, err := exec.Command(cli, "--tls", "--cacert", p.caFile, "--cert", p.cliCert, "--key", p.cliKey, "-h", host, "-p", port, "SET", "cli", "tls").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "OK" {
		t.Fatalf("redis-cli --tls SET: %v %s", err, out)
	}
	if v, _ := s.Client(t).Get(context.Background(), "cli").Result(); v != "tls" {
		t.Fatalf("value set by redis-cli over TLS: %q", v)
	}
}

// A connection refused at accept (protected mode, maxclients) must not
// hold up the TLS listener: its refusal goes out over TLS, and a client
// that never sends its ClientHello used to block the accept loop in the
// handshake, so no other TLS client was served.
func TestTLSRefusalDoesNotBlockAccept(t *testing.T) {
	p := newPKI(t)
	ping := func(addr string, cfg *tls.Config) error {
		d := &net.Dialer{Timeout: 3 * time.Second}
		conn, err := tls.DialWithDialer(d, "tcp", addr, cfg)
		if err != nil {
			return err
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(3 * time.Second))
		conn.Write([]byte("PING\r\n"))
		buf := make([]byte, 64)
		n, err := conn.Read(buf)
		if err != nil {
			return err
		}
		if string(buf[:n]) != "+PONG\r\n" {
			return errors.New("reply " + strconv.Quote(string(buf[:n])))
		}
		return nil
	}
	silent := func(t *testing.T, addr string) net.Conn { // connects, never says hello
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	t.Run("protected-mode", func(t *testing.T) {
		ip := externalIP(t)
		s := harness.Start(t, append(p.args(harness.FreePort(t)), "--bind", "0.0.0.0", "--tls-auth-clients", "no")...)
		port := s.TLSAddr().(*net.TCPAddr).Port
		silent(t, net.JoinHostPort(ip, strconv.Itoa(port)))
		time.Sleep(50 * time.Millisecond) // accepted first
		if err := ping(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), p.clientConfig(false)); err != nil {
			t.Fatalf("local TLS client behind a silent remote one: %v", err)
		}
		// A remote client that completes the handshake reads the refusal.
		err := ping(net.JoinHostPort(ip, strconv.Itoa(port)), p.clientConfig(false))
		if err == nil || !strings.Contains(err.Error(), "-DENIED Redis is running in protected mode") {
			t.Fatalf("remote TLS client in protected mode: %v", err)
		}
	})
	t.Run("maxclients", func(t *testing.T) {
		s := harness.Start(t, append(p.args(harness.FreePort(t)), "--tls-auth-clients", "no", "--maxclients", "1")...)
		addr := s.TLSAddr().String()
		first, err := tls.Dial("tcp", addr, p.clientConfig(false))
		if err != nil {
			t.Fatal(err)
		}
		first.Write([]byte("PING\r\n"))
		first.Read(make([]byte, 16))
		silent(t, addr)
		time.Sleep(50 * time.Millisecond)
		first.Close()
		deadline := time.Now().Add(3 * time.Second)
		for { // the server sees the first client go
			if err = ping(addr, p.clientConfig(false)); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("TLS client after a silent refused one: %v", err)
		}
	})
}
