// Package progress draws one live status line on a terminal and stays
// silent otherwise (pipes, files, CI logs).
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hotkv/hotkv/internal/bench/sysinfo"
)

// Line is a status line for one long phase.
type Line struct {
	w     io.Writer
	phase string
	start time.Time
	mu    sync.Mutex
	last  time.Time
	width int
}

// Start begins a phase; the line is drawn on stderr only when stdout is a
// terminal.
func Start(phase string) *Line {
	l := &Line{phase: phase, start: time.Now()}
	if sysinfo.IsTerminal(os.Stdout) && sysinfo.IsTerminal(os.Stderr) {
		l.w = os.Stderr
	}
	return l
}

// Set shows the fraction done (0..1) and an optional detail.
func (l *Line) Set(frac float64, detail string) {
	if l == nil || l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(l.last) < 100*time.Millisecond && frac < 1 {
		return
	}
	l.last = time.Now()
	frac = min(max(frac, 0), 1)
	const bar = 24
	n := int(frac * bar)
	eta := ""
	if el := time.Since(l.start); frac > 0.01 && frac < 1 {
		eta = fmt.Sprintf(" eta %s", (time.Duration(float64(el)/frac) - el).Round(time.Second))
	}
	s := fmt.Sprintf("\r%s [%s%s] %3.0f%%%s %s", l.phase, strings.Repeat("#", n), strings.Repeat(".", bar-n), 100*frac, eta, detail)
	pad := max(0, l.width-len(s))
	l.width = len(s)
	fmt.Fprint(l.w, s+strings.Repeat(" ", pad))
}

// Fraction is Set without a detail, for callbacks.
func (l *Line) Fraction(frac float64) { l.Set(frac, "") }

// Done clears the line.
func (l *Line) Done() {
	if l == nil || l.w == nil {
		return
	}
	fmt.Fprint(l.w, "\r"+strings.Repeat(" ", l.width)+"\r")
}
