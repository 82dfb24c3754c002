package httpapi

import (
	"net/http"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// GovPay's apikey authentication: X-APP-ID names the application (idA2A)
// or operator (principal), X-API-KEY is its key, set by PUT
// /applicazioni/{idA2A} or /operatori/{principal} with apiKey.
const (
	appIDHeader  = "X-APP-ID"
	apiKeyHeader = "X-API-KEY"
	// maxAPIKeyHeader bounds what an unauthenticated caller makes us hash
	// and look up, as parseBasic bounds the Authorization header.
	maxAPIKeyHeader = 1024
)

// apiKeyPrincipal verifies the request's X-APP-ID and X-API-KEY (one of
// each, oneValue) through the same credential path as a basic password
// (verified-credential cache, equal cost for an unknown id and a wrong
// key), and the position of the state the principal was read from.
func (s *Server) apiKeyPrincipal(r *http.Request) (*projections.PrincipalRecord, events.Position, error) {
	id, okID := oneValue(r.Header, appIDKey)
	key, okKey := oneValue(r.Header, apiKeyKey)
	if !okID || !okKey || id == "" || key == "" || len(id) > maxAPIKeyHeader || len(key) > maxAPIKeyHeader {
		return nil, 0, errUnauthenticated
	}
	return s.model.AuthenticateWithPosition(s.logins, r.RemoteAddr, projections.CredentialAPIKey, id, key)
}
