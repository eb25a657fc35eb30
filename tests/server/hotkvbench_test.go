package server

import (
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/bench/kv"
	"github.com/hotkv/hotkv/internal/bench/respclient"
	"github.com/hotkv/hotkv/internal/bench/target"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// TestHotkvBenchKV drives a real server with hotkv-bench's load generator.
func TestHotkvBenchKV(t *testing.T) {
	s := harness.Start(t)
	srv, err := target.Probe("hotkv", s.Addr, time.Second)
	if err != nil || srv.Software != "hotkv" || srv.Version == "" || srv.PID == 0 || srv.CPU() <= 0 {
		t.Fatalf("probe %+v %v", srv, err)
	}
	set, _ := kv.Lookup("set")
	res, err := kv.Run(kv.Encode(set, 100, 8, 1000, 8, 1), kv.Options{Addr: s.Addr, Connections: 4, Pipeline: 8,
		Requests: 2000, DialTimeout: 5 * time.Second, ServerCPU: srv.CPU})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops < 2000 || res.Errors != 0 || res.OpsPerSec <= 0 || res.P50us <= 0 || res.P99us < res.P50us {
		t.Fatalf("result %+v", res)
	}
	c, err := respclient.Dial(s.Addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n, err := c.Do("DBSIZE"); err != nil || n.(int64) == 0 || n.(int64) > 100 {
		t.Fatalf("DBSIZE %v %v after SET over 100 keys", n, err)
	}
	if v, err := c.Do("GET", "key:000000000007"); err != nil || (v != nil && v != "xxxxxxxx") {
		t.Fatalf("GET %v %v", v, err)
	}
	// Error replies are counted, not fatal: INCR on a value that is not a number.
	incr, _ := kv.Lookup("INCR key:__rand_int__")
	res, err = kv.Run(kv.Encode(incr, 100, 0, 100, 1, 1), kv.Options{Addr: s.Addr, Connections: 2, Pipeline: 1,
		Requests: 100, DialTimeout: 5 * time.Second})
	if err != nil || res.Errors == 0 || !strings.Contains(res.FirstError, "not an integer") {
		t.Fatalf("%+v %v", res, err)
	}
	// Every standard command is one the server knows.
	for _, w := range kv.Standard {
		if missing, err := c.Supports(strings.Fields(w.Line)[0]); err != nil || missing != "" {
			t.Errorf("%s: missing %q %v", w.Name, missing, err)
		}
	}
	if missing, _ := c.Supports("GET", "NOSUCHCMD"); missing != "NOSUCHCMD" {
		t.Errorf("unknown command reported as %q", missing)
	}
}
