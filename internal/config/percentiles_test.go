package config

import (
	"fmt"
	"testing"
)

// latency-tracking-info-percentiles as Redis reads (strtod) and prints
// ("%f" trimmed) them, through the file too.
func TestLatencyPercentiles(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string // CONFIG GET, or the error
	}{
		{[]string{"50", "99", "99.9"}, "50 99 99.9"},
		{[]string{""}, ""},
		{nil, ""},
		{[]string{"50.0", "1e1", "0x10", "1.5e-3", "33.3333333", "0", "100"}, "50 10 16 0.0015 33.333333 0 100"},
		{[]string{"abc"}, "Invalid latency-tracking-info-percentiles parameters"},
		{[]string{"nan"}, "Invalid latency-tracking-info-percentiles parameters"},
		{[]string{"1e400"}, "Invalid latency-tracking-info-percentiles parameters"},
		{[]string{"1e-400"}, "Invalid latency-tracking-info-percentiles parameters"},
		{[]string{"1_0"}, "Invalid latency-tracking-info-percentiles parameters"},
		{[]string{"101"}, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		{[]string{"-1"}, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
		{[]string{"inf"}, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
	} {
		c := Default()
		got := ""
		if err := Lookup("latency-tracking-info-percentiles").Set(c, tc.in); err != nil {
			got = err.Error()
		} else {
			got = Lookup("latency-tracking-info-percentiles").Get(c)
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
	c := Default()
	if got := fmt.Sprintln(c.LatencyTracking, Lookup("latency-tracking-info-percentiles").Get(c)); got != "true 50 99 99.9\n" {
		t.Fatalf("defaults: %s", got)
	}
	for _, text := range []string{"latency-tracking-info-percentiles 25 75\nlatency-tracking no\n", "latency-tracking-info-percentiles \"\"\n"} {
		c := Default()
		if err := Parse(c, text); err != nil {
			t.Fatal(err)
		}
		back := Default()
		if err := Parse(back, c.Text()); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(back.LatencyPercentiles, back.LatencyTracking) != fmt.Sprint(c.LatencyPercentiles, c.LatencyTracking) {
			t.Errorf("%q: %v %v, back %v %v", text, c.LatencyPercentiles, c.LatencyTracking, back.LatencyPercentiles, back.LatencyTracking)
		}
	}
}
