package admin

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// INFO, with Redis's section and field names. The sections about the
// server's own state (clients, memory, persistence, stats, replication,
// keyspace, ...) are written by the server (Server.InfoSection); those
// that need nothing of it are written here.

var defaultSections = []string{"server", "clients", "memory", "persistence", "threads", "stats", "replication", "cpu", "modules", "errorstats", "cluster", "keyspace"}

func info(x *cmdtable.Ctx) {
	a := srv(x)
	a.FlushStats() // include this connection's latest commands
	want := map[string]bool{}
	if len(x.Args) == 1 {
		for _, n := range defaultSections {
			want[n] = true
		}
	}
	for _, arg := range x.Args[1:] {
		switch sec := strings.ToLower(string(arg)); sec {
		case "default":
			for _, n := range defaultSections {
				want[n] = true
			}
		case "all", "everything":
			for _, n := range defaultSections {
				want[n] = true
			}
			want["commandstats"] = true
			want["latencystats"] = true
		default:
			want[sec] = true
		}
	}
	var b strings.Builder
	for _, sec := range []string{"server", "clients", "memory", "persistence", "threads", "stats", "replication", "cpu", "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace"} {
		if !want[sec] {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("# " + sectionTitles[sec] + "\r\n")
		switch sec {
		case "cpu":
			infoCPU(&b)
		case "modules": // vector sets are built in; Redis 8 lists them as this module
			b.WriteString("module:name=" + VectorsetModule + ",ver=1,api=1,filters=0,usedby=[],using=[],options=[handle-io-errors|handle-repl-async-load]\r\n")
		case "cluster":
			b.WriteString("cluster_enabled:0\r\n")
		default:
			a.InfoSection(&b, sec)
		}
	}
	x.W.Verbatim(b.String())
}

var sectionTitles = map[string]string{
	"server": "Server", "clients": "Clients", "memory": "Memory", "persistence": "Persistence", "threads": "Threads",
	"stats": "Stats", "replication": "Replication", "cpu": "CPU", "modules": "Modules",
	"commandstats": "Commandstats", "errorstats": "Errorstats", "latencystats": "Latencystats", "cluster": "Cluster", "keyspace": "Keyspace",
}

func infoCPU(b *strings.Builder) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Fprintf(b, "used_cpu_sys:%.6f\r\n", tv(ru.Stime))
	fmt.Fprintf(b, "used_cpu_user:%.6f\r\n", tv(ru.Utime))
	b.WriteString("used_cpu_sys_children:0.000000\r\n")
	b.WriteString("used_cpu_user_children:0.000000\r\n")
	// Commands run on every thread, not one: the main thread's share is
	// the process's.
	fmt.Fprintf(b, "used_cpu_sys_main_thread:%.6f\r\n", tv(ru.Stime))
	fmt.Fprintf(b, "used_cpu_user_main_thread:%.6f\r\n", tv(ru.Utime))
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func init() {
	cmdtable.Register(&cmdtable.Cmd{Name: "info", Arity: -1, Flags: cmdtable.Loading | cmdtable.Stale, Run: info, Group: "server", Since: "1.0.0", ACL: []string{"dangerous"},
		Summary: "Returns information and statistics about the server.", Args: "[section [section ...]]"})
}
