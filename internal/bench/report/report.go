// Package report holds every measured run of a hotkv-bench invocation: it
// is written as JSON (so reports can be regenerated and compared) and
// rendered as Markdown, and it selects the recall-matched comparison.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/hotkv/hotkv/internal/bench/kv"
	"github.com/hotkv/hotkv/internal/bench/sysinfo"
	"github.com/hotkv/hotkv/internal/bench/target"
	"github.com/hotkv/hotkv/internal/bench/vector"
)

// Report is one invocation.
type Report struct {
	Tool        string          `json:"tool"`
	Created     time.Time       `json:"created"`
	CommandLine string          `json:"command_line"`
	Machine     sysinfo.Machine `json:"machine"`
	Notes       []string        `json:"notes,omitempty"`
	KV          *KV             `json:"kv,omitempty"`
	Vector      *Vector         `json:"vector,omitempty"`

	// Commit is the HotKV commit measured and Label what the run compares
	// (e.g. "pinned"): both head its table on the summary page.
	Commit string `json:"commit,omitempty"`
	Label  string `json:"label,omitempty"`
	// Source is set only on figures converted from another tool's report
	// (scripts/bench-peers.sh's Markdown): that report's path from the
	// repository root.
	Source string `json:"source,omitempty"`
}

// KV is a key-value throughput run.
type KV struct {
	Settings KVSettings       `json:"settings"`
	Servers  []*target.Server `json:"servers"`
	Points   []KVPoint        `json:"points"`
}

// KVSettings are the load generator's settings.
type KVSettings struct {
	Connections int     `json:"connections"`
	Pipelines   []int   `json:"pipelines"`
	KeySpace    int     `json:"keyspace"`
	ValueSize   int     `json:"value_size"`
	Warmup      float64 `json:"warmup_s"`
	Duration    float64 `json:"duration_s,omitempty"`
	Requests    int64   `json:"requests,omitempty"`
	Runs        int     `json:"runs"`
	Threads     int     `json:"threads"`
}

// KVPoint is one command on one server at one pipeline depth.
type KVPoint struct {
	Server   string      `json:"server"`
	Command  string      `json:"command"`
	Line     string      `json:"line"`
	Pipeline int         `json:"pipeline"`
	Runs     []kv.Result `json:"runs"`
	Median   kv.Result   `json:"median"`
}

// Vector is a vector-search run.
type Vector struct {
	Dataset  Dataset         `json:"dataset"`
	Settings VectorSettings  `json:"settings"`
	Engines  []*EngineResult `json:"engines"`
}

// Dataset describes the data indexed and queried.
type Dataset struct {
	Source      string  `json:"source"`
	QuerySource string  `json:"query_source,omitempty"`
	Dim         int     `json:"dim"`
	Base        int     `json:"base"`
	Queries     int     `json:"queries"`
	K           int     `json:"k"`
	Metric      string  `json:"metric"`
	GroundTruth string  `json:"ground_truth"`
	GTSeconds   float64 `json:"ground_truth_seconds,omitempty"`
}

// VectorSettings are the index and measurement settings.
type VectorSettings struct {
	M               int     `json:"m"`
	EFConstruction  int     `json:"ef_construction"`
	EFs             []int   `json:"efs"`
	Clients         []int   `json:"clients"`
	Warmup          float64 `json:"warmup_s"`
	Duration        float64 `json:"duration_s"`
	Runs            int     `json:"runs"`
	LoadConnections int     `json:"load_connections"`
	SkipLoad        bool    `json:"skip_load,omitempty"`
}

// EngineResult is everything measured on one engine.
type EngineResult struct {
	Name   string               `json:"name"`
	Engine string               `json:"engine"`
	Server *target.Server       `json:"server"`
	Load   *vector.LoadResult   `json:"load,omitempty"`
	Recall []vector.RecallPoint `json:"recall"`
	Grid   []vector.GridPoint   `json:"grid"`
}

// Write saves r as indented JSON.
func (r *Report) Write(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Read loads a report written by Write.
func Read(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a hotkv-bench report: %v", path, err)
	}
	if r.KV == nil && r.Vector == nil {
		return nil, fmt.Errorf("%s: not a hotkv-bench report (no kv or vector results)", path)
	}
	return &r, nil
}
