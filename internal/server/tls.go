package server

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/config"
)

// TLS on tls-port, as Redis's tls-* settings describe it. Its connections
// are served by the same client loop as plain ones, through crypto/tls
// (the loop's raw system calls apply to plain sockets only). Every
// handshake takes the settings in force, so CONFIG SET of a tls-* setting
// (a renewed certificate) applies to the next connection.
type tlsState struct {
	conf atomic.Pointer[tls.Config]
	addr net.Addr // the first TLS listener's address
}

// listenTLS listens on tls-port at every bind address.
func (s *Server) listenTLS(cfg *config.Config) error {
	tc, err := tlsConfig(cfg.TLS())
	if err != nil {
		return fmt.Errorf("Failed to configure TLS: %w", err)
	}
	s.tls.conf.Store(tc)
	ls, err := s.listenTCP(cfg.Bind, cfg.TLS().Port)
	if err != nil {
		return err
	}
	s.listeners.add(kindTLS, s.wrapTLS(ls)...)
	s.tls.addr = ls[0].Addr()
	return nil
}

// wrapTLS makes TLS listeners of ls, with the certificates in force at
// each handshake (CONFIG SET tls-* replaces them).
func (s *Server) wrapTLS(ls []net.Listener) []net.Listener {
	outer := &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { return s.tls.conf.Load(), nil }}
	out := make([]net.Listener, len(ls))
	for i, l := range ls {
		out[i] = tls.NewListener(l, outer)
	}
	return out
}

// TLSAddr is the TLS listener's address, nil without tls-port.
func (s *Server) TLSAddr() net.Addr { return s.tls.addr }

// reloadTLS applies changed tls-* settings (CONFIG SET): the new
// configuration must load, or the change is refused.
func (s *Server) reloadTLS(t config.TLSSettings) error {
	if s.tls.conf.Load() == nil {
		return nil // no TLS listener: the settings are checked when one starts
	}
	tc, err := tlsConfig(t)
	if err != nil {
		return err
	}
	s.tls.conf.Store(tc)
	return nil
}

// tlsConfig builds the server's TLS configuration from the tls-* settings.
func tlsConfig(cfg config.TLSSettings) (*tls.Config, error) {
	if cfg.CertFile == "" || cfg.KeyFile == "" {
		return nil, errors.New("tls-cert-file and tls-key-file must be set")
	}
	cert, err := loadKeyPair(cfg.CertFile, cfg.KeyFile, cfg.KeyFilePass)
	if err != nil {
		return nil, err
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, SessionTicketsDisabled: !cfg.SessionCaching}
	if tc.MinVersion, tc.MaxVersion, err = tlsVersions(cfg.Protocols); err != nil {
		return nil, err
	}
	if tc.CipherSuites, err = tlsCiphers(cfg.Ciphers); err != nil {
		return nil, err
	}
	if err := checkTLS13Suites(cfg.CipherSuites); err != nil {
		return nil, err
	}
	switch cfg.AuthClients {
	case "no":
		tc.ClientAuth = tls.NoClientCert
	case "optional":
		tc.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		tc.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if cfg.CACertFile != "" || cfg.CACertDir != "" {
		if tc.ClientCAs, err = loadCAs(cfg.CACertFile, cfg.CACertDir); err != nil {
			return nil, err
		}
	} else if tc.ClientAuth != tls.NoClientCert {
		return nil, errors.New("either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!")
	}
	return tc, nil
}

// loadKeyPair reads a PEM certificate chain and key; pass decrypts a key
// in the legacy encrypted PEM form (Proc-Type: 4,ENCRYPTED), the only
// encrypted form the standard library reads.
func loadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	if pass != "" {
		block, _ := pem.Decode(keyPEM)
		if block == nil || !x509.IsEncryptedPEMBlock(block) {
			return tls.Certificate{}, fmt.Errorf("%s: tls-key-file-pass is set but the key is not an encrypted PEM key", keyFile)
		}
		der, err := x509.DecryptPEMBlock(block, []byte(pass))
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("%s: %w", keyFile, err)
		}
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der})
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// loadCAs reads the certificates clients must chain to: a PEM file, and
// every PEM file of a directory.
func loadCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	var files []string
	if file != "" {
		files = append(files, file)
	}
	if dir != "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if !pool.AppendCertsFromPEM(b) && f == file {
			return nil, fmt.Errorf("%s: no PEM certificate", f)
		}
	}
	return pool, nil
}

// tlsVersions is tls-protocols ("TLSv1.2 TLSv1.3" when empty, as in Redis)
// as the lowest and highest version.
func tlsVersions(protocols string) (lo, hi uint16, err error) {
	names := map[string]uint16{"tlsv1": tls.VersionTLS10, "tlsv1.1": tls.VersionTLS11, "tlsv1.2": tls.VersionTLS12, "tlsv1.3": tls.VersionTLS13}
	words := strings.Fields(protocols)
	if len(words) == 0 {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	for _, w := range words {
		v, ok := names[strings.ToLower(w)]
		if !ok {
			return 0, 0, errors.New("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")
		}
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi, nil
}

// tlsCiphers is tls-ciphers, the TLS 1.2 cipher suites, by OpenSSL or IANA
// name, colon-separated; "" keeps Go's defaults. OpenSSL's cipher-string
// keywords (DEFAULT, HIGH, !aNULL...) are refused rather than guessed at.
func tlsCiphers(list string) ([]uint16, error) {
	if list == "" {
		return nil, nil
	}
	byName := map[string]uint16{}
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if slices.Contains(cs.SupportedVersions, tls.VersionTLS12) {
			byName[cs.Name] = cs.ID
		}
	}
	for o, iana := range openSSLNames {
		byName[o] = byName[iana]
	}
	var ids []uint16
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		id, ok := byName[strings.ToUpper(name)]
		if !ok {
			return nil, fmt.Errorf("tls-ciphers: unknown cipher suite %q (HotKV takes suite names such as ECDHE-RSA-AES128-GCM-SHA256, not OpenSSL cipher expressions)", name)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// openSSLNames are the OpenSSL names (which redis.conf uses) of Go's
// TLS 1.2 cipher suites.
var openSSLNames = map[string]string{
	"ECDHE-ECDSA-AES128-GCM-SHA256": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-ECDSA-AES256-GCM-SHA384": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-RSA-AES128-GCM-SHA256":   "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-RSA-AES256-GCM-SHA384":   "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-ECDSA-CHACHA20-POLY1305": "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-RSA-CHACHA20-POLY1305":   "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-ECDSA-AES128-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
	"ECDHE-ECDSA-AES256-SHA":        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
	"ECDHE-RSA-AES128-SHA":          "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
	"ECDHE-RSA-AES256-SHA":          "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
	"ECDHE-ECDSA-AES128-SHA256":     "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
	"ECDHE-RSA-AES128-SHA256":       "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
	"ECDHE-RSA-DES-CBC3-SHA":        "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
	"ECDHE-ECDSA-RC4-SHA":           "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
	"ECDHE-RSA-RC4-SHA":             "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
	"AES128-GCM-SHA256":             "TLS_RSA_WITH_AES_128_GCM_SHA256",
	"AES256-GCM-SHA384":             "TLS_RSA_WITH_AES_256_GCM_SHA384",
	"AES128-SHA256":                 "TLS_RSA_WITH_AES_128_CBC_SHA256",
	"AES128-SHA":                    "TLS_RSA_WITH_AES_128_CBC_SHA",
	"AES256-SHA":                    "TLS_RSA_WITH_AES_256_CBC_SHA",
	"DES-CBC3-SHA":                  "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
	"RC4-SHA":                       "TLS_RSA_WITH_RC4_128_SHA",
}

// checkTLS13Suites accepts tls-ciphersuites only when it names exactly
// Go's TLS 1.3 suites: Go does not let a server narrow them.
func checkTLS13Suites(list string) error {
	if list == "" {
		return nil
	}
	want := map[string]bool{"TLS_AES_128_GCM_SHA256": true, "TLS_AES_256_GCM_SHA384": true, "TLS_CHACHA20_POLY1305_SHA256": true}
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ":") {
		if !want[strings.ToUpper(n)] {
			return fmt.Errorf("tls-ciphersuites: HotKV cannot use %q; its TLS 1.3 suites are fixed (TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256); limit tls-protocols to TLSv1.2 to choose suites with tls-ciphers", n)
		}
		seen[strings.ToUpper(n)] = true
	}
	if len(seen) != len(want) {
		return errors.New("tls-ciphersuites: HotKV cannot narrow the TLS 1.3 suites (Go enables TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256)")
	}
	return nil
}
