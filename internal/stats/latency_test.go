package stats

import "testing"

func TestLatencySparkline(t *testing.T) {
	series := func(at int64, ms ...int64) *Series {
		ts := &Series{}
		for i, v := range ms {
			ts.Samples = append(ts.Samples, Sample{at + int64(i), v})
			ts.Max = max(ts.Max, v)
		}
		return ts
	}
	dashes := "--------------------------------------------------------------------------------\n"
	for _, tc := range []struct {
		name string
		ts   *Series
		now  int64
		want string
	}{
		{
			// Redis 8.0.2's reply for these samples (LATENCY HISTORY command
			// read in the same second).
			name: "redis",
			ts:   series(1796127582, 2, 27, 6, 60, 9, 2, 40),
			now:  1796127589,
			want: "command - high 60 ms, low 2 ms (all time high 60 ms)\n" + dashes +
				"   #   \n   |  o\n # |  |\n_|_|o_|\n       \n7654321\nsssssss\n",
		},
		{
			// All equal: the bottom row only; labels in minutes, hours, days.
			name: "flat",
			ts: &Series{Max: 9, Samples: []Sample{
				{10000, 5}, {96300, 5}, {99910, 5}}},
			now: 100000,
			want: "command - high 5 ms, low 5 ms (all time high 9 ms)\n" + dashes +
				"   \n   \n   \n___\n   \n111\ndhm\n",
		},
	} {
		if got := Sparkline("command", tc.ts, tc.now); got != tc.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
	// More than 80 samples wrap into a second block after a blank line.
	ms := make([]int64, 81)
	ms[80] = 1
	got := Sparkline("command", series(0, ms...), 100)
	if want := "\n\n#\n|\n|\n|\n \n2\n0\ns\n"; len(got) < len(want) || got[len(got)-len(want):] != want {
		t.Errorf("second block:\n%q", got)
	}
}
