package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"
)

func healthcheckCmd() *cobra.Command {
	var (
		addr    = defaultConfig().HTTPAddr
		url     string
		timeout = 3 * time.Second
	)
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Probe the service's /readyz: exit 0 when it answers 200, 1 otherwise (for image and compose health checks)",
		Long: `healthcheck asks GET /readyz of the service listening on --http-addr (the same
flag and PAYAUTHZ_HTTP_ADDR variable as serve, so a container probes the
service it runs), or of --url. It exits 0 when the answer is 200 and 1
otherwise, naming the reason on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			if timeout <= 0 {
				return usageErrorf("--timeout %v: want a positive duration", timeout)
			}
			target := url
			if target == "" {
				u, err := readyzURL(addr)
				if err != nil {
					return usageErrorf("--http-addr: %w", err)
				}
				target = u
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
			if err != nil {
				return usageErrorf("--url: %w", err)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return fmt.Errorf("not healthy: %w", err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				return fmt.Errorf("not healthy: %s answered %d", target, res.StatusCode)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "http-addr", addr, "the service's plain HTTP listener (as given to serve)")
	cmd.Flags().StringVar(&url, "url", "", "probe this URL instead (e.g. http://host:8080/readyz)")
	cmd.Flags().DurationVar(&timeout, "timeout", timeout, "give up after this long")
	fromEnv(cmd.Flags(), "http-addr")
	return cmd
}

// readyzURL is the /readyz URL of a listener address; an empty or
// unspecified host is the loopback address.
func readyzURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/readyz", nil
}
