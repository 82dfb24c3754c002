package main

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/payauthz/payauthz/projections"
)

func replayCmd() *cobra.Command {
	cfg := defaultConfig()
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Rebuild every projection from the log and report events, duration, events/s and peak heap",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return replay(cmd.Context(), cfg, cmd)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "data dir of a stopped embedded server")
	fs.StringVar(&cfg.NATSURL, "nats-url", cfg.NATSURL, "external NATS server or cluster")
	fs.StringVar(&cfg.Store, "store", cfg.Store, "event store: jetstream, or a KurrentDB/EventStoreDB connection string")
	fs.StringVar(&cfg.LogLevel, "log-level", "warn", "log level")
	return cmd
}

func replay(ctx context.Context, cfg Config, cmd *cobra.Command) error {
	logger := newLogger(cfg.LogLevel)
	store, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer store.Close()

	var peak atomic.Uint64
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > peak.Load() {
			peak.Store(ms.HeapAlloc)
		}
	}
	stop := make(chan struct{})
	go func() {
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

	model := projections.New()
	start := time.Now()
	err = model.CatchUp(ctx, store, logger)
	elapsed := time.Since(start)
	close(stop)
	sample()
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	n := model.AppliedEvents()
	rate := float64(n) / elapsed.Seconds()
	fmt.Fprintf(cmd.OutOrStdout(), "events: %d\nposition: %d\nduration: %s\nevents/s: %.0f\npeak heap: %.1f MiB\n",
		n, uint64(model.AppliedPosition()), elapsed.Round(time.Millisecond), rate, float64(peak.Load())/(1<<20))
	return nil
}
