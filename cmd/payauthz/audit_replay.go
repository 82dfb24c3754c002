package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

func newReplayCmd(ac *auditConfig, use string) *cobra.Command {
	var pf pointFlags
	cmd := &cobra.Command{
		Use:   use + " [--to POSITION | --at RFC3339]",
		Short: "Rebuild every projection from the log up to a point and report events, duration, events/s, peak heap and counts per event type",
		Args:  cobra.NoArgs,
		RunE: withEnv(func(cmd *cobra.Command, _ []string) error {
			u, err := pf.until()
			if err != nil {
				return err
			}
			return replay(cmd, ac, u)
		}),
	}
	pf.bind(cmd.Flags(), "to")
	return cmd
}

func replay(cmd *cobra.Command, ac *auditConfig, u projections.Until) error {
	ctx := cmd.Context()
	store, err := ac.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := checkPoint(ctx, store, u); err != nil {
		return err
	}
	last, err := store.LastPosition(ctx)
	if err != nil {
		return err
	}
	target := last
	if u.Position != 0 && u.Position < target {
		target = u.Position
	}

	var peak atomic.Uint64
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > peak.Load() {
			peak.Store(ms.HeapAlloc)
		}
	}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				sample()
			case <-stop:
				return
			}
		}
	}()

	bar := newProgress(cmd.ErrOrStderr(), uint64(target))
	_, st, err := projections.Rebuild(ctx, store, u, bar.update)
	close(stop)
	<-sampled
	sample()
	bar.finish()
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "replayed to: %s\nevents: %d\nposition: %d (log end %d)\nduration: %s\nevents/s: %.0f\npeak heap: %.1f MiB\n",
		u, st.Events, uint64(st.Position), uint64(st.Last), st.Duration.Round(time.Millisecond), st.EventsPerSecond(),
		float64(peak.Load())/(1<<20))
	names := make([]string, 0, len(st.ByType))
	for n := range st.ByType {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(out, "events by type:")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, n := range names {
		fmt.Fprintf(tw, "  %s\t%d\n", n, st.ByType[n])
	}
	return tw.Flush()
}

// progress draws a progress bar with the running events/s on a terminal
// and plain lines (one per tenth, each with the events/s so far)
// elsewhere, on stderr; the summary on stdout ends with the overall rate. update is called from Rebuild's goroutine only.
type progress struct {
	w      io.Writer
	tty    bool
	target uint64
	start  time.Time
	last   time.Time
	events uint64
	pos    uint64
	decile int
}

func newProgress(w io.Writer, target uint64) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &progress{w: w, tty: tty, target: target, start: time.Now()}
}

func (p *progress) update(env events.Envelope) {
	p.events++
	p.pos = uint64(env.Position)
	if p.target == 0 {
		return
	}
	if p.tty {
		if p.events&1023 != 0 {
			return
		}
		if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond {
			p.last = now
			p.draw()
		}
		return
	}
	if d := int(p.pos * 10 / p.target); d > p.decile {
		p.decile = d
		elapsed := time.Since(p.start)
		fmt.Fprintf(p.w, "replay: %3d%%  position %d of %d  %d events  %s  %.0f events/s\n", d*10, p.pos, p.target, p.events,
			elapsed.Round(time.Millisecond), float64(p.events)/elapsed.Seconds())
	}
}

func (p *progress) draw() {
	const width = 40
	frac := float64(p.pos) / float64(p.target)
	if frac > 1 {
		frac = 1
	}
	done := int(frac * width)
	rate := float64(p.events) / time.Since(p.start).Seconds()
	fmt.Fprintf(p.w, "\r[%s%s] %3.0f%%  position %d/%d  %.0f events/s ", strings.Repeat("=", done),
		strings.Repeat(" ", width-done), frac*100, p.pos, p.target, rate)
}

func (p *progress) finish() {
	if p.tty && p.target > 0 {
		p.draw()
		fmt.Fprintln(p.w)
	}
}
