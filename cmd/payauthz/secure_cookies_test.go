package main

import (
	"net/http"
	"path/filepath"
	"testing"
)

// TestSecureCookiesFlag: --secure-cookies, and its former name
// --console-secure-cookies, make every cookie the service sets Secure over
// plain HTTP (a proxy terminates TLS): the public API's session and the
// console's. Without either, no cookie is Secure over plain HTTP.
func TestSecureCookiesFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		want bool
	}{
		{"default", nil, false},
		{"secure_cookies", []string{"--secure-cookies"}, true},
		{"former_name_console_secure_cookies", []string{"--console-secure-cookies"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			svc := startChild(t, filepath.Join(t.TempDir(), "data"), freePort(t), c.args...)
			for _, path := range []string{"/pagamento/rs/public/v2/logout", "/console/login"} {
				res, err := http.Get(svc.url + path)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != http.StatusOK || len(res.Cookies()) == 0 {
					t.Fatalf("GET %s: status %d, cookies %v", path, res.StatusCode, res.Cookies())
				}
				for _, ck := range res.Cookies() {
					if ck.Secure != c.want {
						t.Errorf("GET %s: cookie %s Secure = %v, want %v", path, ck.Name, ck.Secure, c.want)
					}
				}
			}
		})
	}
}
