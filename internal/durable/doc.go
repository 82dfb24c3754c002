// Package durable writes the files the service must not lose (secrets it
// generates, read-model snapshots, backups) so that a crash leaves either
// the old file or the whole new one, never an empty or half-written file,
// and so that the new one is still there after the machine restarts.
//
// A file is written to a temporary file in its own directory, fsynced,
// renamed over its path (github.com/google/renameio/v2), and then the
// directory is fsynced, without which the rename itself may be lost. The
// file gets the mode it is written with, never the mode of a file it
// replaces: a secret written with 0600 over a 0644 file stays 0600.
//
// The package imports nothing of ours.
package durable
