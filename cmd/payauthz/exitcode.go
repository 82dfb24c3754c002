package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// Exit codes of payauthz: 0 success, 1 failure, 2 usage (bad flags or
// arguments), 3 a decision that denies (audit explain, admin check).
const (
	exitFailure = 1
	exitUsage   = 2
	exitDenied  = 3
)

// exitError carries the process exit code of a command's error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is a usage error: exit code 2.
func usageErrorf(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// errDenied is returned by a command that printed a denial: exit code 3,
// and nothing more to print.
var errDenied = &exitError{code: exitDenied, err: errors.New("denied")}

// exitCode maps a command's error to the process exit code.
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

// argsAreUsage makes a wrong command line exit 2 throughout the tree under
// c: a leaf's positional-argument errors become usage errors (a leaf
// that declares none takes none), and a group
// (a command with subcommands) named with a word that is none of them
// answers "unknown command" as a usage error, as an unknown flag does.
// A group named alone prints its help, as before.
func argsAreUsage(c *cobra.Command) {
	if c.HasSubCommands() {
		c.Args = cobra.ArbitraryArgs
		if c.Run == nil && c.RunE == nil {
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) == 0 {
					return cmd.Help()
				}
				return usageErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
			}
		}
		for _, s := range c.Commands() {
			argsAreUsage(s)
		}
		return
	}
	check := c.Args
	if check == nil {
		check = cobra.NoArgs
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageErrorf("%w", err)
		}
		return nil
	}
}
