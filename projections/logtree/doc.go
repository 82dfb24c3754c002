// Package logtree makes the event log verifiable, as certificate-
// transparency logs and Go's checksum database are: a Merkle tree (RFC
// 6962/9162 hashing, github.com/transparency-dev/merkle) over every event
// of the log in log order, checkpoints of it signed in the signed-note
// format of golang.org/x/mod/sumdb/note, inclusion and consistency proofs
// an outsider checks with the verifier key alone, and the verification of
// a whole log against its checkpoints.
//
// Leaf i of the tree is the i-th event of the log (from 0), counting every
// event of every commit in order; its leaf hash is RFC 6962's
// SHA-256(0x00 || LeafData(event)). A checkpoint is itself an event, so a
// leaf: it covers a size N, the first N leaves, all of which come before
// it in the log (N is the size the signer's tree had when it signed; other
// events may have been appended between).
//
// Memory: a Tree keeps the compact range of the whole tree (one hash per
// set bit of the size), the hash of every complete block of 256 leaves
// (the tree's level-8 nodes: 32 bytes per 256 events, 128 KiB per million
// events) with where each block starts in the log, and the leaf hashes of
// the most recent leaves. Roots at past sizes and proofs are computed from
// these; the leaves of an older block are read again from the log (at
// most two blocks per proof) and checked against the block's hash.
package logtree
