// Package jetstream is the NATS JetStream event store of payauthz.
//
// By default it runs an embedded nats-server in-process with JetStream file
// storage under the data dir and fsync on every write (SyncAlways: the log
// is the system of record). It listens on no port, unless LocalReader asks
// for a loopback listener where only a read-only user authenticated by a
// per-start secret may read the log (reader.go). With URLs it connects to an external server or
// cluster instead and creates the stream with the configured replicas.
//
// The whole log is one JetStream stream; each aggregate stream is one
// subject. An Append is one message (a commit holding one or more events)
// published with the expected last-subject sequence, so the stream's
// sequence is the global position and a subject's last sequence is the
// aggregate's version. Nats-Msg-Id carries the first event's id, so a
// retried append is stored once.
package jetstream
