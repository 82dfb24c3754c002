// Package kurrentdb is the EventStoreDB / KurrentDB event store of payauthz,
// built on github.com/kurrent-io/KurrentDB-Client-Go (gRPC; EventStoreDB
// 22.10 or later, KurrentDB 25 or later).
//
// # Streams and versions
//
// Each aggregate stream is one KurrentDB stream named StreamPrefix + the
// aggregate's stream name ("payauthz-dominio-1"); the prefix keeps the
// names clear of system streams ("$…") and of other applications sharing
// the database, and is the server-side filter of the $all subscription.
// An Append is one AppendToStream call (atomic: its events are written
// contiguously, with consecutive stream revisions) with the expected
// revision: events.ExpectNoStream becomes NoStream, and events.Version v
// becomes Revision(v-1). The Version of every event of a commit is the
// stream revision of the commit's last event plus one, i.e. the number of
// events in the stream after the commit; so all events of one commit share
// their Version, and 0 stays "no stream". Wrong expected version (and the
// newer stream-revision-conflict code) map to events.ErrConflict.
//
// # Positions
//
// KurrentDB orders its whole log ($all) by commit position: a byte offset
// in the transaction log. The Position of a commit is the $all commit
// position of the commit's last event, which is what AppendToStream
// reports. Positions therefore start above 0 and strictly grow with each
// commit, but they are sparse: they are not counts and consecutive commits
// do not differ by one (JetStream's are dense). Everything in payauthz
// compares positions, reads after one (Read, Subscribe) or from one
// (ReadFrom); nothing counts on density, except the projection-lag gauge,
// which measures bytes of log with this store. The server refuses a read
// from where no record starts (InvalidArgument, "invalid position"), such
// as the position before a commit's: ReadFrom finds where to start by
// reading $all backwards from the commit's position, and takes a position
// where no record starts as one past a commit's (a listing's next page);
// any other is events.ErrInvalidPosition.
//
// Each event carries its place in its commit in its metadata (index, size
// and the commit's first event id), so a reader regroups the events of one
// append and hands them out with the commit's Position, Index and
// CommitSize. Reading from a position that falls inside a commit (only a
// hand-made position can) fetches the commit's earlier events from the
// aggregate stream, so a commit is always delivered whole.
//
// # Reading
//
// Read and Subscribe run a catch-up subscription to $all, filtered on the
// server by the stream prefix, starting after the given position
// (exclusive; position 0 starts at the beginning, never at the end).
// Events of system type ("$…") are dropped. When the subscription drops
// (server restart, leader change, network, a deadline), it is opened again
// after the last commit handed to the handler, so no commit is skipped or
// repeated. When the server ends it refusing the account (credentials or
// the right to read $all gone), or the request (InvalidArgument), it is
// not: Read and Subscribe return, with events.ErrAccessDenied for the
// account. The client passes such a drop on as a bare gRPC status, where
// it reports a call refused at its start with its own error codes; both
// are read.
//
// # Idempotence
//
// The record's id becomes the event's UUID (an id that is not a UUID is
// mapped to a name-based UUID, the same for every retry), and the original
// id travels in the metadata. KurrentDB answers a retried append of the
// same events at the same expected revision with the first append's result
// instead of writing it again.
//
// # Durability
//
// KurrentDB acknowledges an append once it is flushed to disk on a majority
// of the cluster's nodes; Close only releases the connection.
package kurrentdb
