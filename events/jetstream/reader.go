package jetstream

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"

	"github.com/nats-io/nats-server/v2/server"
)

// ReaderUser is the NATS user of the operators' tools on an embedded
// server opened with Config.LocalReader.
const ReaderUser = "payauthz-reader"

// serviceUser is the NATS user of the service's own in-process
// connection; its password never leaves the process.
const serviceUser = "payauthz-service"

// serviceInboxPrefix is the inbox prefix of the service's connection when
// a reader may connect: the reader subscribes to _INBOX.> for its own
// replies, and must not see the service's (the log's messages it consumes,
// the answers to its writes) nor learn an inbox to deliver into.
const serviceInboxPrefix = "_PAYAUTHZ_SERVICE_INBOX"

// ReaderAccess is where and how a tool on this host reads the log of an
// embedded server started with Config.LocalReader: a loopback URL, the
// read-only user and its secret (generated at each start, so a copy taken
// from a previous run is worthless). LogValue leaves the secret out.
type ReaderAccess struct {
	URL      string `json:"url"`
	User     string `json:"user"`
	Password string `json:"password"`
}

// LogValue implements slog.LogValuer without the secret.
func (r ReaderAccess) LogValue() slog.Value {
	return slog.GroupValue(slog.String("url", r.URL), slog.String("user", r.User))
}

// LocalReader returns the endpoint of Config.LocalReader (false without it).
func (s *Store) LocalReader() (ReaderAccess, bool) {
	if s.reader == nil {
		return ReaderAccess{}, false
	}
	return *s.reader, true
}

// withLocalReader makes opts listen on a random loopback port with two
// users, each with a fresh random secret: the service (every permission)
// and ReaderUser (read-only on stream). It returns the service's secret
// and the reader's access (its URL is known once the server listens).
func withLocalReader(opts *server.Options, stream string) (*server.Options, string, *ReaderAccess, error) {
	service, err := randomSecret()
	if err != nil {
		return nil, "", nil, err
	}
	reader, err := randomSecret()
	if err != nil {
		return nil, "", nil, err
	}
	opts.DontListen = false
	opts.Host = "127.0.0.1"
	opts.Port = server.RANDOM_PORT
	opts.Users = []*server.User{
		{Username: serviceUser, Password: service},
		{Username: ReaderUser, Password: reader, Permissions: readerPermissions(stream)},
	}
	return opts, service, &ReaderAccess{User: ReaderUser, Password: reader}, nil
}

// readerPermissions allows the JetStream API requests a read-only Store
// makes on stream — its info, direct and API message gets, and ordered
// consumers (create, next batch, info, delete) — and replies on its own
// inboxes (not the service's: serviceInboxPrefix).
// Nothing else may be published: not the log's subjects, not a stream
// update, purge or delete. (A consumer never delivers into the stream:
// the server refuses a deliver subject the stream captures.)
func readerPermissions(stream string) *server.Permissions {
	return &server.Permissions{
		Publish: &server.SubjectPermission{Allow: []string{
			"$JS.API.INFO",
			"$JS.API.STREAM.INFO." + stream,
			"$JS.API.STREAM.MSG.GET." + stream,
			"$JS.API.DIRECT.GET." + stream,
			"$JS.API.DIRECT.GET." + stream + ".>",
			"$JS.API.CONSUMER.CREATE." + stream,
			"$JS.API.CONSUMER.CREATE." + stream + ".>",
			"$JS.API.CONSUMER.INFO." + stream + ".>",
			"$JS.API.CONSUMER.MSG.NEXT." + stream + ".>",
			"$JS.API.CONSUMER.DELETE." + stream + ".>",
		}},
		Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>"}},
	}
}

func randomSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("jetstream: secret: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
