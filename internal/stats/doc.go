// Package stats holds what the server measures about the commands it runs:
// the slowlog (SLOWLOG), the latency monitor (LATENCY LATEST, HISTORY,
// GRAPH, DOCTOR), the per-command latency histograms (LATENCY HISTOGRAM,
// INFO latencystats), commandstats and errorstats, and the instantaneous
// rates INFO reports. The server owns one of each and feeds them from the
// command path; it keeps the commands' replies and the INFO sections, which
// need its connections.
//
// # Latency histograms
//
// Redis records each call's duration, in whole microseconds, in an HDR
// histogram per command (nanoseconds, two significant digits), which
// LATENCY HISTOGRAM reads at the powers of two from 1024 ns: a bucket
// labelled with the highest microsecond HDR's sub-bucket at 1024·2^k ns
// holds, 1, 2, 4, 8, 16, 33, 66, 132, ... (latLabels). HotKV counts the
// calls of each command in latBuckets buckets of microseconds: one per
// microsecond up to 33, then each of those LATENCY HISTOGRAM buckets split
// in eighths. So LATENCY HISTOGRAM is exact; so are the percentiles INFO
// prints while they fall at or under 33 µs (printed as Redis prints them,
// from HDR's sub-bucket of the value); above, a percentile is the upper end
// of its eighth, at most 12.5% above what Redis would print.
//
// The counts live in each connection (ConnLatency), one histogram per
// command, and are summed on read with the calls commandstats counts: no
// cache line is shared between connections. Bucket 0 (under 1 µs), where a
// fast command's calls nearly all fall, is not counted at all: it is the
// calls commandstats counts less those in the other buckets and those made
// with latency-tracking off (hist.untracked). So the command path only
// compares its duration with a microsecond's ticks (ConnLatency.Fast); a
// slower call of the running command is counted in a per-connection
// counter (ConnLatency.pend) and published after the calls, at the end of
// the batch (ConnLatency.Flush); one that EXEC or a script runs, at once.
package stats
