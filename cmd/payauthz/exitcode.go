package main

import (
	"errors"
	"fmt"
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
