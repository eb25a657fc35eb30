package kv

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/bench/nullserver"
)

func TestEncodeRing(t *testing.T) {
	w, _ := Lookup("mset")
	r := Encode(w, 1000, 5, 50, 4, 1)
	if r.Len() != 50 {
		t.Fatalf("ring of %d", r.Len())
	}
	// Every batch, including those wrapping around, is whole requests.
	for i := range r.Len() {
		b := r.batch(i, 4)
		if got := bytes.Count(b, []byte("*21\r\n$4\r\nMSET\r\n")); got != 4 {
			t.Fatalf("batch %d holds %d requests", i, got)
		}
	}
	if !bytes.Contains(r.batch(0, 1), []byte("$16\r\nkey:000000000")) || !bytes.Contains(r.batch(0, 1), []byte("$5\r\nxxxxx\r\n")) {
		t.Fatalf("request %q", r.batch(0, 1))
	}
	// A command without random parts is encoded once.
	p, _ := Lookup("PING")
	if r := Encode(p, 1000, 3, 50, 16, 1); r.Len() != 1 || string(r.batch(0, 2)) != "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n" {
		t.Fatalf("ping ring %d %q", r.Len(), r.batch(0, 2))
	}
}

func TestLookup(t *testing.T) {
	if w, err := Lookup("hset"); err != nil || w.Name != "HSET" {
		t.Fatal(w, err)
	}
	if w, err := Lookup("lpush list:__rand_int__ __data__"); err != nil || w.Name != "LPUSH" {
		t.Fatal(w, err)
	}
	if _, err := Lookup("frobnicate"); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Fatal(err)
	}
}

func TestRunDurationAndNullServer(t *testing.T) {
	ns, err := nullserver.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	w, _ := Lookup("get")
	res, err := Run(Encode(w, 10, 3, 100, 16, 1), Options{Addr: ns.Addr(), Connections: 2, Pipeline: 16,
		Warmup: 20 * time.Millisecond, Duration: 100 * time.Millisecond, DialTimeout: time.Second})
	if err != nil || res.Ops == 0 || res.Ops%16 != 0 || res.Seconds < 0.09 || res.ClientCores <= 0 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestRunUnreachable(t *testing.T) {
	ns, _ := nullserver.Listen("127.0.0.1:0")
	addr := ns.Addr()
	ns.Close()
	w, _ := Lookup("ping")
	_, err := Run(Encode(w, 1, 0, 1, 1, 1), Options{Addr: addr, Connections: 1, Pipeline: 1, Requests: 1, DialTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "cannot connect to "+addr) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("%v", err)
	}
}

func TestMedian(t *testing.T) {
	m := Median([]Result{{OpsPerSec: 3, P99us: 9}, {OpsPerSec: 1, P99us: 1, ClientBound: true}, {OpsPerSec: 2, P99us: 5}})
	if m.OpsPerSec != 2 || m.P99us != 5 || !m.ClientBound {
		t.Fatalf("%+v", m)
	}
}

func TestRunServerHangsUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Answers the PING of Dial, then closes the connection.
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 64)
			c.Read(buf)
			c.Write([]byte("+PONG\r\n"))
			c.Close()
		}
	}()
	w, _ := Lookup("get")
	_, err = Run(Encode(w, 10, 3, 10, 1, 1), Options{Addr: ln.Addr().String(), Connections: 2, Pipeline: 1,
		Duration: time.Second, DialTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Fatalf("got %v", err)
	}
}
