// Package sysinfo reads what a benchmark report says about the machine and
// about processes: CPU model, usable cores, process CPU time and RSS.
package sysinfo

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Machine describes the host a run was made on.
type Machine struct {
	Host      string  `json:"host"`
	OS        string  `json:"os"`
	Arch      string  `json:"arch"`
	CPU       string  `json:"cpu"`
	Cores     int     `json:"cores"`
	Usable    int     `json:"usable_cores"` // CPU affinity of this process (taskset)
	Go        string  `json:"go"`
	Kernel    string  `json:"kernel"`
	MemoryGiB float64 `json:"memory_gib"`
}

// Describe returns the current machine.
func Describe() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU(), Usable: UsableCores(), Go: runtime.Version()}
	m.Host, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.Cores = 0
		for _, l := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(l, ":")
			switch k = strings.TrimSpace(k); {
			case ok && k == "model name" && m.CPU == "":
				m.CPU = strings.TrimSpace(v)
			case ok && k == "processor":
				m.Cores++
			}
		}
		if m.Cores == 0 {
			m.Cores = runtime.NumCPU()
		}
	}
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil {
		m.MemoryGiB = float64(si.Totalram) * float64(si.Unit) / (1 << 30)
	}
	return m
}

// UsableCores is the number of CPUs this process may run on.
func UsableCores() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return runtime.NumCPU()
	}
	return set.Count()
}

// SelfCPU is the CPU time (user + system, seconds) this process has used.
func SelfCPU() float64 {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// ProcCPU is the CPU time (seconds) process pid has used, from /proc.
func ProcCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100, nil // USER_HZ is 100 on Linux
}

// ProcRSS is the resident set size (bytes) of process pid.
func ProcRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
