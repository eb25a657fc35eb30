package main

import (
	"strings"
	"testing"
)

func TestReadPeersCSV(t *testing.T) {
	in := peersCSVHeader + `
pinned,hotkv-base,16,ping,1,100000,1400000,0.63,80
pinned,hotkv,16,ping,1,100000,1300000,0.61,98
pinned,hotkv,16,ping,2,100000,1200000,0.60,80
pinned,hotkv-base,16,ping,2,100000,1500000,0.65,81
pinned,hotkv,16,ping,3,100000,1250000,0.70,82
pinned,hotkv-base,16,ping,3,100000,1450000,0.64,79
free,valkey,16,ping,1,100000,900000,0.9,50
pinned,valkey,1,get,1,20000,90000,8.3,99
`
	k, err := readPeersCSV(strings.NewReader(in), "pinned")
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Points) != 3 {
		t.Fatalf("%d points, want 3 (hotkv, hotkv-base PING P16; valkey GET P1): %+v", len(k.Points), k.Points)
	}
	// HotKV's point comes first although the CSV's first run is hotkv-base's.
	if got := k.Settings.Pipelines; len(got) != 2 || got[0] != 16 || got[1] != 1 {
		t.Errorf("pipelines %v, want [16 1]", got)
	}
	var names, sw []string
	for _, s := range k.Servers {
		names, sw = append(names, s.Name), append(sw, s.Software)
	}
	if strings.Join(names, ",") != "hotkv,hotkv-base,valkey" || strings.Join(sw, ",") != "hotkv,hotkv,valkey" {
		t.Errorf("servers %v, software %v", names, sw)
	}
	h := k.Points[0]
	if h.Server != "hotkv" || h.Command != "PING" || h.Pipeline != 16 || len(h.Runs) != 3 {
		t.Fatalf("first point %+v", h)
	}
	if h.Median.OpsPerSec != 1250000 || h.Median.ServerUsOp != 0.61 || h.Median.ClientCores != 0.82 {
		t.Errorf("hotkv median %+v: want 1250000 ops/s, 0.61 us/op, 0.82 client cores (each column's median)", h.Median)
	}
	if !h.Median.ClientBound {
		t.Error("hotkv's first run used 98% of the client's core: the point is client-bound")
	}
	if b := k.Points[1]; b.Median.ClientBound || b.Median.OpsPerSec != 1450000 {
		t.Errorf("hotkv-base median %+v: want 1450000 ops/s, not client-bound", b.Median)
	}
	if v := k.Points[2]; v.Server != "valkey" || v.Command != "GET" || v.Median.Ops != 20000 {
		t.Errorf("valkey point %+v", v)
	}
}

func TestReadPeersCSVErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"header", "a,b,c\n", "header"},
		{"number", peersCSVHeader + "\npinned,hotkv,16,ping,1,100000,fast,0.6,90\n", `ops_per_sec "fast"`},
		{"negative", peersCSVHeader + "\npinned,hotkv,16,ping,1,100000,5,-1,90\n", `server_us_per_op "-1"`},
		{"fields", peersCSVHeader + "\npinned,hotkv,16\n", "number of fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readPeersCSV(strings.NewReader(tc.in), "pinned")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
