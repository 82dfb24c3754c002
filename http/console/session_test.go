package console

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/projections"
)

// TestSessionsPerPrincipalAreBounded: logging in again and again keeps a
// principal's newest sessions only, and leaves other principals' alone;
// ending and expiry remove a session from its principal's list too.
func TestSessionsPerPrincipalAreBounded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	st := newSessions(time.Hour, 8*time.Hour)
	st.now = func() time.Time { return now }
	rec := func(name string) *projections.PrincipalRecord {
		return &projections.PrincipalRecord{Principal: domain.Principal{Name: name, Kind: domain.KindOperator, Enabled: true}}
	}
	other, _ := st.start(rec("other"), domain.AuthSPID)
	var ids []string
	for range 10 * maxSessionsPerPrincipal {
		id, _ := st.start(rec("flood"), domain.AuthSPID)
		ids = append(ids, id)
	}
	if n := len(st.m); n != maxSessionsPerPrincipal+1 {
		t.Fatalf("store holds %d sessions, want %d", n, maxSessionsPerPrincipal+1)
	}
	kept := len(ids) - maxSessionsPerPrincipal
	for i, id := range ids {
		if _, ok := st.get(id); ok != (i >= kept) {
			t.Fatalf("session %d of %d live = %v", i, len(ids), ok)
		}
	}
	if _, ok := st.get(other); !ok {
		t.Fatal("another principal's session was ended")
	}

	st.end(ids[len(ids)-1])
	if _, ok := st.get(ids[len(ids)-1]); ok || len(st.byName["flood"]) != maxSessionsPerPrincipal-1 {
		t.Fatalf("ended session still listed: %d listed", len(st.byName["flood"]))
	}

	// Past the idle timeout, the next login sweeps every expired session.
	now = now.Add(2 * time.Hour)
	fresh, _ := st.start(rec("late"), domain.AuthSPID)
	if len(st.m) != 1 || len(st.byName) != 1 {
		t.Fatalf("after the sweep: %d sessions, %d principals listed, want 1 and 1", len(st.m), len(st.byName))
	}
	if _, ok := st.get(fresh); !ok {
		t.Fatal("the new session is not live")
	}
}

// TestCookiesSecure: the console's cookies are Secure on a TLS request,
// and on every request with SecureCookies (a proxy terminates TLS).
func TestCookiesSecure(t *testing.T) {
	t.Parallel()
	m := projections.New()
	for _, c := range []struct {
		name   string
		secure bool
		tls    bool
		want   bool
	}{
		{"plain_http", false, false, false},
		{"tls_request", false, true, true},
		{"behind_a_tls_proxy", true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			con, err := New(Config{SecureCookies: c.secure}, Deps{Model: m, Token: func(events.Position) string { return "" },
				SPIDCode: func(*http.Request) (string, bool) { return "", false }, Fault: internalFault, Importo: noImporto})
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest("GET", "/console/login", nil)
			if c.tls {
				req.TLS = &tls.ConnectionState{}
			}
			rec := httptest.NewRecorder()
			con.ServeHTTP(rec, req)
			cookies := rec.Result().Cookies()
			if rec.Code != 200 || len(cookies) == 0 {
				t.Fatalf("status %d, cookies %v", rec.Code, cookies)
			}
			for _, ck := range cookies {
				if ck.Secure != c.want {
					t.Fatalf("cookie %s Secure = %v, want %v", ck.Name, ck.Secure, c.want)
				}
			}
		})
	}
}
