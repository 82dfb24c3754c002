// Command payauthz is the authorization layer of a GovPay-style payment
// service: an event-sourced CQRS service whose HTTP handlers authorize
// every request against read models folded from the event log.
//
//	payauthz serve    run the service (embedded NATS JetStream by default)
//	payauthz replay   alias of audit replay
//	payauthz audit    auditors: replay, who-can, explain, events
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := rootCmd().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "payauthz:", err)
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "payauthz",
		Short:         "Event-sourced authorization layer for a GovPay-style payment service",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCmd(), replayCmd(), auditCmd())
	return root
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}
