package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const adminConfigYAML = `domini:
  - idDominio: "11111111111"
    ragioneSociale: Comune A
    abilitato: true
  - idDominio: "22222222222"
    ragioneSociale: Comune B
    abilitato: true
tipiPendenza:
  - idTipoPendenza: TARI
    descrizione: Tassa rifiuti
    abilitato: true
    pagamentoSpontaneo: false
ruoli:
  - idRuolo: Lettore
    acl: [{servizio: Pendenze, autorizzazioni: [R]}]
    domini: ["11111111111"]
    tipiPendenza: ["*"]
operatori:
  - principal: mario
    ragioneSociale: Mario Rossi
    password: mario-password-1
    abilitato: true
    ruoli: [Lettore]
applicazioni:
  - idA2A: gestionale
    principal: gestionale
    password: gestionale-pw
    abilitato: true
    ruoli: []
    autorizzazioniApi:
      - {api: PENDENZE, domini: ["11111111111"], tipiPendenza: ["*"]}
`

// tempFile writes content to a file named name in a new temp dir (mode
// 0600) and returns its path.
func tempFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// service is a started payauthz and an admin context for it.
type service struct {
	*child
	context string
	data    string // its data dir
}

// adminCLI runs `payauthz admin --config cfg ARGS...` and returns what it
// printed; a failure ends t.
func adminCLI(t *testing.T, cfg string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		return mustRun(t, append([]string{"admin", "--config", cfg}, args...)...)
	}
}

func startAdminService(t *testing.T, cfg, name string) service {
	t.Helper()
	dir := t.TempDir()
	pw := adminPasswordFile(t, dir)
	data := filepath.Join(dir, "data")
	c := startChild(t, data, freePort(t), "--admin-password-file", pw)
	adminCLI(t, cfg)("context", "set", name, "--url", c.url+"/backoffice/rs/basic/v1",
		"--user", "admin", "--password-file", pw)
	return service{child: c, context: name, data: data}
}

// applyAgainWritesNothing applies file again through admin and asserts
// it plans no change (unchanged resources, none failed) and the log does
// not move: apply is idempotent.
func (s service) applyAgainWritesNothing(t *testing.T, admin func(...string) string, file string, unchanged int) {
	t.Helper()
	before := s.position(t)
	want := fmt.Sprintf("applied 0 changes, %d unchanged, 0 failed", unchanged)
	if again := admin("apply", "-f", file); !strings.Contains(again, want) || s.position(t) != before {
		t.Fatalf("a second apply of the same file is not a no-op (log position %v → %v):\n%s", before, s.position(t), again)
	}
}

func (s service) position(t *testing.T) float64 {
	t.Helper()
	res, err := http.Get(s.url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r struct{ Position float64 }
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r.Position
}

// whoCan asks the live service who may do an operation (the Backoffice
// who-can), without positions.
func (s service) whoCan(t *testing.T, query string) string {
	t.Helper()
	b := adminGet(t, s.url+"/backoffice/rs/basic/v1/autorizzazioni?"+query)
	var v map[string]any
	_ = json.Unmarshal(b, &v)
	delete(v, "posizione")
	out, _ := json.Marshal(v)
	// log positions differ between deployments; the decisions must not
	return regexp.MustCompile(`"posizionePrincipal":[0-9]+,?`).ReplaceAllString(string(out), "")
}

// TestAdminCLI: contexts; apply shows its plan, writes in dependency
// order, and a second apply writes no event; export → apply on an empty
// deployment gives the same who-can answers; grant, revoke, get, list and
// check (exit 3 on a denial).
func TestAdminCLI(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	conf := tempFile(t, "payauthz.yaml", adminConfigYAML)
	admin := adminCLI(t, cfg)

	ctxs := admin("context", "list")
	if !strings.Contains(ctxs, "*  ") || strings.Contains(ctxs, "admin-pass-1") {
		t.Fatalf("context list:\n%s", ctxs)
	}
	if b, _ := os.ReadFile(cfg); strings.Contains(string(b), "admin-pass-1") {
		t.Fatalf("the contexts file holds a password:\n%s", b)
	}

	before := a.position(t)
	plan := admin("apply", "-f", conf, "--dry-run")
	if !strings.Contains(plan, "+ domini/11111111111") || !strings.Contains(plan, "would apply 6 changes") || a.position(t) != before {
		t.Fatalf("dry run wrote or planned wrong:\n%s", plan)
	}
	out := admin("apply", "-f", conf)
	if !strings.Contains(out, "applied 6 changes, 0 unchanged, 0 failed") {
		t.Fatalf("apply:\n%s", out)
	}
	a.applyAgainWritesNothing(t, admin, conf, 6)
	if code := call(t, "GET", a.url+"/pendenze/rs/basic/v2/pendenze", "gestionale", "gestionale-pw", ""); code != 200 {
		t.Fatalf("the applied application cannot log in: %d", code)
	}

	// a change is shown with its fields, and a failure names its resource
	changed := strings.Replace(adminConfigYAML, "Comune B", "Comune Bis", 1) +
		"intermediari:\n  - idIntermediario: INT01\n    denominazione: X\n    abilitato: true\n    connettoreNodo: {principal: \"\"}\n"
	if err := os.WriteFile(conf, []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := run(t, "admin", "--config", cfg, "apply", "-f", conf)
	if err == nil || !strings.Contains(errOut, "failed: intermediari[0] intermediari/INT01: PUT /intermediari/INT01: 400") {
		t.Fatalf("a failing resource: %v\n%s", err, errOut)
	}
	if got := admin("get", "domini", "22222222222", "-o", "json"); !strings.Contains(got, "Comune Bis") {
		t.Fatalf("the other changes were not applied:\n%s", got)
	}

	// check, grant, revoke
	check := []string{"admin", "--config", cfg, "check", "--principal", "gestionale", "--api", "PENDENZE", "--operation", "create",
		"--dominio", "22222222222", "--tipo", "TARI"}
	if out, _, err := run(t, check...); exitCode(err) != exitDenied || !strings.Contains(out, "DENY") {
		t.Fatalf("check of a denial: exit %d %v\n%s", exitCode(err), err, out)
	}
	admin("grant", "gestionale", "--api", "PENDENZE", "--domini", "11111111111,22222222222", "--tipi", "*")
	if out, _, err := run(t, check...); err != nil || !strings.HasPrefix(out, "ALLOW (rule granted)\nrests on log position ") {
		t.Fatalf("check after the grant (an allow has no detail to print): %v\n%s", err, out)
	}
	admin("revoke", "gestionale", "--api", "PENDENZE")
	if _, _, err := run(t, check...); exitCode(err) != exitDenied {
		t.Fatalf("check after the revoke: %v", err)
	}
	admin("grant", "gestionale", "--api", "PENDENZE", "--domini", "11111111111", "--tipi", "*")
	if list := admin("list", "applicazioni"); !strings.HasPrefix(list, "IDA2A") || !strings.Contains(list, "gestionale") {
		t.Fatalf("list:\n%s", list)
	}
	if _, _, err := run(t, "admin", "--config", cfg, "get", "nonsense", "x"); exitCode(err) != exitUsage {
		t.Fatalf("unknown kind: %v", err)
	}
	for _, args := range [][]string{{"list"}, {"revoke"}, {"get", "domini", "a", "b"}, {"nosuch"}} {
		if _, _, err := run(t, append([]string{"admin", "--config", cfg}, args...)...); exitCode(err) != exitUsage {
			t.Fatalf("admin %v: exit %d (%v), want %d", args, exitCode(err), err, exitUsage)
		}
	}

	// export → apply on an empty deployment reproduces the decisions
	exported := admin("export")
	if strings.Contains(exported, "password") || strings.Contains(exported, "$argon2") {
		t.Fatalf("export holds secrets:\n%s", exported)
	}
	if regexp.MustCompile(`(?m)^[ -]*id: `).MatchString(exported) {
		t.Fatalf("export holds a role's GovPay id, which restates its idRuolo:\n%s", exported)
	}
	if strings.Contains(exported, "domini: []") || strings.Contains(exported, "tipiPendenza: []") {
		t.Fatalf("export holds the empty scope of operators without a personal role:\n%s", exported)
	}
	b := startAdminService(t, cfg, "b")
	exp := filepath.Join(t.TempDir(), "exported.yaml")
	if err := os.WriteFile(exp, []byte(supplyCredentials(t, exported, liveModel(t, a.data))), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := admin("--context", "b", "apply", "-f", exp); !strings.Contains(out, "0 failed") {
		t.Fatalf("apply of the export:\n%s", out)
	}
	for _, q := range []string{
		"api=PENDENZE&operazione=create&idDominio=11111111111&idTipoPendenza=TARI",
		"api=PENDENZE&operazione=create&idDominio=22222222222&idTipoPendenza=TARI",
		"api=PENDENZE&operazione=list",
		"api=BACKOFFICE&operazione=servizio&servizio=Pendenze&autorizzazione=R&idDominio=11111111111",
		"api=BACKOFFICE&operazione=servizio&servizio=Anagrafica%20Creditore&autorizzazione=W",
	} {
		if wa, wb := a.whoCan(t, q), b.whoCan(t, q); wa != wb {
			t.Errorf("who-can %s differs:\n a: %s\n b: %s", q, wa, wb)
		}
	}
	if again := admin("export"); again != mustRun(t, "admin", "--config", cfg, "--context", "b", "export") {
		t.Errorf("the exports differ")
	}
}

// TestAdminApplyProtection: the public API protection is part of the
// configuration. apply plans and writes it, a second apply writes no
// event, GET never returns the secret and export holds the settings
// without it; a deployment without the section keeps its protection.
func TestAdminApplyProtection(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	conf := filepath.Join(t.TempDir(), "protezione.yaml")
	const yamlText = `protezione:
  abilitato: true
  captcha:
    serverURL: http://127.0.0.1:9/siteverify
    secretKey: captcha-secret-1
    soglia: 0.7
    parametro: gRecaptchaResponse
    denyOnFail: false
    timeoutMs: 1500
`
	if err := os.WriteFile(conf, []byte(yamlText), 0o600); err != nil {
		t.Fatal(err)
	}
	before := a.position(t)
	plan := admin("apply", "-f", conf, "--dry-run")
	if !strings.Contains(plan, "~ protezione: abilitato, captcha.denyOnFail, captcha.serverURL, captcha.soglia, captcha.timeoutMs") ||
		!strings.Contains(plan, "would apply 1 changes") || a.position(t) != before {
		t.Fatalf("dry run (position %v → %v):\n%s", before, a.position(t), plan)
	}
	if out := admin("apply", "-f", conf); !strings.Contains(out, "applied 1 changes, 0 unchanged, 0 failed") {
		t.Fatalf("apply:\n%s", out)
	}
	after := a.position(t)
	if after == before {
		t.Fatal("apply wrote no event")
	}

	body := adminGet(t, a.url+"/backoffice/rs/basic/v1/configurazioni/hardening")
	if !strings.Contains(string(body), `"abilitato":true`) ||
		!strings.Contains(string(body), `"soglia":0.7`) || strings.Contains(string(body), "captcha-secret-1") {
		t.Fatalf("GET hardening after apply: %s", body)
	}

	a.applyAgainWritesNothing(t, admin, conf, 1)
	exported := admin("export")
	if !strings.Contains(exported, "protezione:") || !strings.Contains(exported, "serverURL: http://127.0.0.1:9/siteverify") ||
		strings.Contains(exported, "captcha-secret-1") || strings.Contains(exported, "secretKey") {
		t.Fatalf("export:\n%s", exported)
	}

	// A file without the section leaves the protection as it is.
	other := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(other, []byte(adminConfigYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	admin("apply", "-f", other)
	body = adminGet(t, a.url+"/backoffice/rs/basic/v1/configurazioni/hardening")
	if !strings.Contains(string(body), `"abilitato":true`) {
		t.Fatalf("apply without protezione changed the protection: %s", body)
	}

	// A malformed section is a usage error, nothing written.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("protezione: [1, 2]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pos := a.position(t)
	if _, _, err := run(t, "admin", "--config", cfg, "apply", "-f", bad); exitCode(err) != exitUsage || a.position(t) != pos {
		t.Fatalf("malformed protezione: exit %d, position %v → %v", exitCode(err), pos, a.position(t))
	}
}

// TestAdminApplyPrune: without --prune nothing the file does not name is
// touched; with it, the resources of the kinds the file lists that it
// does not name are disabled (never the principal apply runs as), a role
// is only reported, and a second prune writes nothing.
func TestAdminApplyPrune(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	full := filepath.Join(t.TempDir(), "full.yaml")
	if err := os.WriteFile(full, []byte(adminConfigYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	admin("apply", "-f", full)

	// The file names the entity and the type, and no operator, application or role.
	small := filepath.Join(t.TempDir(), "small.yaml")
	const smallYAML = `domini:
  - {idDominio: "11111111111", ragioneSociale: Comune A, abilitato: true}
operatori: []
applicazioni: []
ruoli: []
`
	if err := os.WriteFile(small, []byte(smallYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	pos := a.position(t)
	if out := admin("apply", "-f", small); !strings.Contains(out, "applied 0 changes") || a.position(t) != pos {
		t.Fatalf("apply without --prune touched what the file does not name (position %v → %v):\n%s", pos, a.position(t), out)
	}
	plan := admin("apply", "-f", small, "--prune", "--dry-run")
	for _, want := range []string{"- applicazioni/gestionale (abilitato: false)", "- operatori/mario (abilitato: false)",
		"- domini/22222222222 (abilitato: false)",
		"! ruoli/Lettore is not in the file", "! operatori/admin is not in the file; it is the principal apply runs as"} {
		if !strings.Contains(plan, want) {
			t.Fatalf("prune plan lacks %q:\n%s", want, plan)
		}
	}
	if a.position(t) != pos {
		t.Fatal("a dry run wrote")
	}
	if strings.Contains(plan, "domini/11111111111") || strings.Contains(plan, "tipiPendenza/") {
		t.Fatalf("prune names what the file names, or a kind the file does not list:\n%s", plan)
	}
	if out := admin("apply", "-f", small, "--prune"); !strings.Contains(out, "applied 3 changes") {
		t.Fatalf("prune:\n%s", out)
	}
	for _, path := range []string{"/applicazioni/gestionale", "/operatori/mario", "/domini/22222222222"} {
		got := admin("get", strings.Split(path, "/")[1], strings.Split(path, "/")[2], "-o", "json")
		if !strings.Contains(got, `"abilitato": false`) {
			t.Fatalf("%s after prune: %s", path, got)
		}
	}
	// The administrator still works, and a second prune writes nothing.
	after := a.position(t)
	if out := admin("apply", "-f", small, "--prune"); !strings.Contains(out, "applied 0 changes") || a.position(t) != after {
		t.Fatalf("second prune (position %v → %v):\n%s", after, a.position(t), out)
	}
}

// TestAdminApplySecretsAreWriteOnly: every write-only field (passwords, API
// keys, the node connector's password, an application's integration
// connector) is sent when its resource is created and never compared, so
// applying the same file twice writes no event; a change of something
// else leaves it out (the service keeps its own), except when the
// principal it belongs to changes: then it goes with the new name, which
// authenticates with it.
func TestAdminApplySecretsAreWriteOnly(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	const text = `intermediari:
  - idIntermediario: INT01
    denominazione: Intermediario
    abilitato: true
    connettoreNodo: {principal: nodo-int01, password: nodo-int01-secret}
operatori:
  - principal: mario
    ragioneSociale: Mario Rossi
    password: mario-password-1
    apiKey: mario-api-key-0001
    abilitato: true
    ruoli: []
applicazioni:
  - idA2A: gestionale
    principal: gestionale
    password: gestionale-password-1
    apiKey: gestionale-api-key-0001
    abilitato: true
    ruoli: []
    servizioIntegrazione: {url: "https://ente.example/govpay", versioneApi: REST v1, auth: {username: gp, password: integration-secret}}
`
	conf := tempFile(t, "payauthz.yaml", text)
	if out := admin("apply", "-f", conf); !strings.Contains(out, "applied 3 changes, 0 unchanged, 0 failed") {
		t.Fatalf("first apply:\n%s", out)
	}
	a.applyAgainWritesNothing(t, admin, conf, 3)

	// Renamed principals: their passwords go with them; another change
	// leaves the secrets out, and the service keeps them.
	renamed := strings.NewReplacer("principal: nodo-int01", "principal: nodo-int01b", "principal: gestionale", "principal: gestionale-b",
		"Mario Rossi", "Mario Rossi Bis").Replace(text)
	out := admin("apply", "-f", tempFile(t, "renamed.yaml", renamed))
	for _, want := range []string{"~ intermediari/INT01: connettoreNodo\n", "~ operatori/mario: ragioneSociale\n",
		"~ applicazioni/gestionale: principal\n", "applied 3 changes, 0 unchanged, 0 failed"} {
		if !strings.Contains(out, want) {
			t.Fatalf("apply of the renamed principals lacks %q:\n%s", want, out)
		}
	}
	nodo := a.url + "/nodo/rs/basic/v1/intermediari/INT01/avvisi/11111111111/000000000000000001"
	for _, c := range []struct {
		name, method, url, user, pass string
		want                          int
	}{
		{"renamed_connector_with_its_password", "GET", nodo, "nodo-int01b", "nodo-int01-secret", 403}, // admitted: no such entity
		{"renamed_connector_wrong_password", "GET", nodo, "nodo-int01b", "wrong-secret", 401},
		{"renamed_application_with_its_password", "GET", a.url + "/backoffice/rs/basic/v1/profilo", "gestionale-b", "gestionale-password-1", 403}, // no role
		{"operator_keeps_its_password", "GET", a.url + "/backoffice/rs/basic/v1/profilo", "mario", "mario-password-1", 403},                       // no role
		{"operator_wrong_password", "GET", a.url + "/backoffice/rs/basic/v1/profilo", "mario", "wrong-password", 401},
	} {
		if got := call(t, c.method, c.url, c.user, c.pass, ""); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
}

// TestAdminApplyPrincipalPagoPa: an intermediary's node principal under
// GovPay's name (principalPagoPa, which GET answers next to
// connettoreNodo.principal) round-trips: a file naming it alone creates
// the intermediary, applying it again writes nothing, export holds the
// principal once (connettoreNodo), a changed principalPagoPa is the one
// written, and so is a changed connettoreNodo.principal of an exported
// file: the name GET restates is never sent against the file's.
func TestAdminApplyPrincipalPagoPa(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	const text = `intermediari:
  - {idIntermediario: INT01, denominazione: Intermediario, abilitato: true, principalPagoPa: nodo-int01}
`
	conf := tempFile(t, "govpay.yaml", text)
	if out := admin("apply", "-f", conf); !strings.Contains(out, "applied 1 changes, 0 unchanged, 0 failed") {
		t.Fatalf("first apply:\n%s", out)
	}
	a.applyAgainWritesNothing(t, admin, conf, 1)
	principal := func() string {
		t.Helper()
		var v struct {
			PrincipalPagoPa string `json:"principalPagoPa"`
			ConnettoreNodo  struct{ Principal string }
		}
		if err := json.Unmarshal(adminGet(t, a.url+"/backoffice/rs/basic/v1/intermediari/INT01"), &v); err != nil {
			t.Fatal(err)
		}
		if v.PrincipalPagoPa != v.ConnettoreNodo.Principal {
			t.Fatalf("principalPagoPa %q, connettoreNodo.principal %q", v.PrincipalPagoPa, v.ConnettoreNodo.Principal)
		}
		return v.PrincipalPagoPa
	}
	if got := principal(); got != "nodo-int01" {
		t.Fatalf("principal %q, want nodo-int01", got)
	}

	exported := admin("export")
	if strings.Contains(exported, "principalPagoPa") || !strings.Contains(exported, "principal: nodo-int01") {
		t.Fatalf("export should hold the principal once, as connettoreNodo.principal:\n%s", exported)
	}
	after := a.position(t)
	if again := admin("apply", "-f", tempFile(t, "exported.yaml", exported)); !strings.Contains(again, "applied 0 changes") || a.position(t) != after {
		t.Fatalf("apply of the export is not a no-op:\n%s", again)
	}

	renamed := strings.Replace(text, "principalPagoPa: nodo-int01", "principalPagoPa: nodo-int01b", 1)
	if out := admin("apply", "-f", tempFile(t, "renamed.yaml", renamed)); !strings.Contains(out, "~ intermediari/INT01: principalPagoPa\n") ||
		!strings.Contains(out, "applied 1 changes, 0 unchanged, 0 failed") {
		t.Fatalf("apply of a renamed principalPagoPa:\n%s", out)
	}
	if got := principal(); got != "nodo-int01b" {
		t.Fatalf("principal %q after the rename, want nodo-int01b", got)
	}
	back := strings.Replace(admin("export"), "principal: nodo-int01b", "principal: nodo-int01c", 1)
	if out := admin("apply", "-f", tempFile(t, "back.yaml", back)); !strings.Contains(out, "~ intermediari/INT01: connettoreNodo\n") ||
		!strings.Contains(out, "applied 1 changes") || strings.Contains(out, "failed:") {
		t.Fatalf("apply of a renamed connettoreNodo.principal:\n%s", out)
	}
	if got := principal(); got != "nodo-int01c" {
		t.Fatalf("principal %q after the rename, want nodo-int01c", got)
	}
}

// TestAdminApplyPrincipalPagoPaWithPassword: a file may give the
// connector's password in connettoreNodo and its principal under GovPay's
// name alone (principalPagoPa), as a PUT takes it: the password is that
// principal's, so a second apply plans no change and writes nothing (the
// password is not sent again, nor connettoreNodo planned as changed), and
// the node admits the principal with it.
func TestAdminApplyPrincipalPagoPaWithPassword(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	conf := tempFile(t, "govpay.yaml", `intermediari:
  - idIntermediario: INT01
    denominazione: Intermediario
    abilitato: true
    principalPagoPa: nodo-int01
    connettoreNodo: {password: nodo-int01-secret}
`)
	if out := admin("apply", "-f", conf); !strings.Contains(out, "applied 1 changes, 0 unchanged, 0 failed") {
		t.Fatalf("first apply:\n%s", out)
	}
	a.applyAgainWritesNothing(t, admin, conf, 1)
	nodo := a.url + "/nodo/rs/basic/v1/intermediari/INT01/avvisi/11111111111/000000000000000001"
	if got := call(t, "GET", nodo, "nodo-int01", "nodo-int01-secret", ""); got != 403 { // admitted: no such entity
		t.Errorf("connector with its password: status %d, want 403", got)
	}
}

// TestAdminApplyCountsEveryFailure: a resource that fails before its
// change is planned (the service not answering its read) is one failed
// change: the summary never counts fewer than none applied.
func TestAdminApplyCountsEveryFailure(t *testing.T) {
	cfg := downContext(t)
	file := tempFile(t, "apply.yaml", `domini:
  - {idDominio: "22222222222", ragioneSociale: Comune B, abilitato: true}
  - {idDominio: "11111111111", ragioneSociale: Comune A, abilitato: true}
`)
	out, errOut, err := run(t, "admin", "--config", cfg, "apply", "-f", file)
	if exitCode(err) != exitFailure {
		t.Fatalf("apply against no service: exit %d (%v), want %d", exitCode(err), err, exitFailure)
	}
	if !strings.Contains(out, "applied 0 changes, 0 unchanged, 1 failed") || !strings.Contains(err.Error(), "1 of 1 changes failed") {
		t.Fatalf("summary:\n%s%v\n%s", out, err, errOut)
	}
}

// TestAdminApplyRefusesBadIDs: a resource without an id, with one YAML
// reads as a number (an unquoted idDominio loses its leading zero), or
// with the id of another of its kind makes the file a usage error, each
// named, before anything is sent: the context's service is not even
// reached (its port is closed).
func TestAdminApplyRefusesBadIDs(t *testing.T) {
	cfg := downContext(t)
	file := tempFile(t, "apply.yaml", `domini:
  - {idDominio: "11111111111", ragioneSociale: Comune A, abilitato: true}
  - {ragioneSociale: Comune senza id, abilitato: true}
  - {idDominio: 01234567890, ragioneSociale: Comune B, abilitato: true}
tipiPendenza:
  - {idTipoPendenza: "", descrizione: Vuoto}
operatori:
  - {principal: mario, ragioneSociale: Mario Rossi, abilitato: true, ruoli: [Lettore]}
  - {principal: mario, ragioneSociale: Mario Rossi, abilitato: false, ruoli: []}
`)
	_, _, err := run(t, "admin", "--config", cfg, "apply", "-f", file)
	if exitCode(err) != exitUsage {
		t.Fatalf("apply of a file with bad ids: exit %d (%v), want %d", exitCode(err), err, exitUsage)
	}
	for _, want := range []string{"domini[1]: idDominio is missing", "domini[2]: idDominio must be a string: quote it",
		"tipiPendenza[0]: idTipoPendenza is empty", "operatori[1]: principal mario is also operatori[0]'s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "domini[0]") || strings.Contains(err.Error(), "operatori[0]:") {
		t.Errorf("error %q names a good resource", err)
	}
}

// TestAdminApplyKindsInAnyCase: a file may spell a kind in any case, as
// get and list take it; its resources are applied, never skipped (the
// plan said "applied 0 changes" and exit 0), and checked like the others
// (here: refused before anything is sent); an unknown kind is refused.
func TestAdminApplyKindsInAnyCase(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	out := admin("apply", "-f", tempFile(t, "a.yaml", `Domini:
  - {idDominio: "33333333333", ragioneSociale: Comune C, abilitato: true}
TIPIPENDENZA:
  - {idTipoPendenza: TARI, descrizione: Tassa rifiuti, abilitato: true, pagamentoSpontaneo: false}
`))
	if !strings.Contains(out, "+ domini/33333333333") || !strings.Contains(out, "applied 2 changes, 0 unchanged, 0 failed") {
		t.Fatalf("apply of kinds spelt in capitals:\n%s", out)
	}
	if got := admin("get", "domini", "33333333333", "-o", "json"); !strings.Contains(got, "Comune C") {
		t.Fatalf("the entity was not written: %s", got)
	}
	pos := a.position(t)
	for name, text := range map[string]string{
		"unknown_kind":             "domain:\n  - {idDominio: \"44444444444\", ragioneSociale: X, abilitato: true}\n",
		"capitalised_without_id":   "Domini:\n  - {ragioneSociale: X, abilitato: true}\n",
		"same_id_in_two_spellings": "domini:\n  - {idDominio: \"44444444444\", ragioneSociale: X, abilitato: true}\nDomini:\n  - {idDominio: \"44444444444\", ragioneSociale: Y, abilitato: true}\n",
	} {
		if _, _, err := run(t, "admin", "--config", cfg, "apply", "-f", tempFile(t, name+".yaml", text)); exitCode(err) != exitUsage || a.position(t) != pos {
			t.Errorf("%s: exit %d (%v), position %v → %v; want %d and nothing written", name, exitCode(err), err, pos, a.position(t), exitUsage)
		}
	}
}

// downContext writes an admin configuration whose current context names
// a service that is not there (a closed loopback port), and returns its
// path: a command that reaches for the service fails.
func downContext(t *testing.T) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	adminCLI(t, cfg)("context", "set", "down", "--url", "http://"+freePort(t)+"/backoffice/rs/basic/v1", "--user", "admin",
		"--password-file", tempFile(t, "pw", "no-password\n"))
	return cfg
}

// TestAdminApplyKeepsWhatTheFileDoesNotName: apply writes the fields its
// plan shows and no other. A PUT replaces a resource whole, so a file
// that changes an operator's name and leaves out its ruoli, or changes an
// application's roles and leaves out its autorizzazioniApi, took them
// away while the plan showed only the name or the roles; and a
// protection section that switched the protection off reset the captcha
// settings it did not name (soglia 0, which passes every score). An
// application's grants in GovPay's shape still replace its
// autorizzazioniApi.
func TestAdminApplyKeepsWhatTheFileDoesNotName(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	admin("apply", "-f", tempFile(t, "full.yaml", adminConfigYAML+`protezione:
  abilitato: true
  captcha: {serverURL: "http://127.0.0.1:9/siteverify", secretKey: captcha-secret-1, soglia: 0.7, parametro: tok, denyOnFail: false, timeoutMs: 1500}
`))
	partial := tempFile(t, "partial.yaml", `operatori:
  - {principal: mario, ragioneSociale: Mario Bis, abilitato: true}
applicazioni:
  - {idA2A: gestionale, principal: gestionale, abilitato: true, ruoli: [Lettore]}
protezione:
  abilitato: false
  captcha: {serverURL: "http://127.0.0.1:9/siteverify"}
`)
	out := admin("apply", "-f", partial)
	for _, want := range []string{"~ operatori/mario: ragioneSociale\n", "~ applicazioni/gestionale: ruoli\n", "~ protezione: abilitato\n",
		"applied 3 changes, 0 unchanged, 0 failed"} {
		if !strings.Contains(out, want) {
			t.Fatalf("apply of the partial file lacks %q:\n%s", want, out)
		}
	}
	after := a.position(t)
	if again := admin("apply", "-f", partial); !strings.Contains(again, "applied 0 changes, 3 unchanged") || a.position(t) != after {
		t.Fatalf("second apply of the partial file (position %v → %v):\n%s", after, a.position(t), again)
	}

	check := func(args ...string) int {
		t.Helper()
		_, _, err := run(t, append([]string{"admin", "--config", cfg, "check"}, args...)...)
		if err == nil {
			return 0
		}
		if exitCode(err) != exitDenied {
			t.Fatalf("check %v: %v", args, err)
		}
		return exitDenied
	}
	create := func(dominio string) []string {
		return []string{"--principal", "gestionale", "--api", "PENDENZE", "--operation", "create", "--dominio", dominio, "--tipo", "TARI"}
	}
	pendenze := func(principal, right string) []string {
		return []string{"--principal", principal, "--api", "BACKOFFICE", "--operation", "servizio", "--servizio", "Pendenze",
			"--autorizzazione", right, "--dominio", "11111111111"}
	}
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"operator_keeps_its_role", pendenze("mario", "R"), 0},
		{"operator_role_gives_no_write", pendenze("mario", "W"), exitDenied},
		{"application_keeps_its_grant", create("11111111111"), 0},
		{"application_grant_stays_scoped", create("22222222222"), exitDenied},
		{"application_takes_its_new_role", pendenze("gestionale", "R"), 0},
	} {
		if got := check(c.args...); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
	body := string(adminGet(t, a.url+"/backoffice/rs/basic/v1/configurazioni/hardening"))
	for _, want := range []string{`"abilitato":false`, `"soglia":0.7`, `"parametro":"tok"`, `"denyOnFail":false`, `"timeoutMs":1500`} {
		if !strings.Contains(body, want) {
			t.Errorf("protection after switching it off lacks %s: %s", want, body)
		}
	}

	// GovPay's shape replaces the grants it states.
	govpay := tempFile(t, "govpay.yaml", `applicazioni:
  - {idA2A: gestionale, principal: gestionale, abilitato: true, apiPendenze: true, domini: ["22222222222"], tipiPendenza: ["*"]}
`)
	if out := admin("apply", "-f", govpay); !strings.Contains(out, "applied 1 changes, 0 unchanged, 0 failed") {
		t.Fatalf("apply of GovPay's shape:\n%s", out)
	}
	if got, denied := check(create("22222222222")...), check(create("11111111111")...); got != 0 || denied != exitDenied {
		t.Errorf("after GovPay's shape: create on the new entity exit %d (want 0), on the old one %d (want %d)", got, denied, exitDenied)
	}
}

// TestAdminApplyRefusesSeveralDocuments: a file of several YAML documents
// (separated by ---) is refused whole before anything is sent (exit 2,
// naming the second document's line): apply read the first and skipped
// the others without a word ("applied 0 changes", exit 0). A document
// marker before the configuration, or after it with nothing following,
// is still one document: that file is applied (here it reaches for the
// service, which is not there: exit 1).
func TestAdminApplyRefusesSeveralDocuments(t *testing.T) {
	cfg := downContext(t)
	for _, c := range []struct {
		name, text string
		code       int
		message    string
	}{
		{"two_documents", "domini: []\n---\noperatori:\n  - {principal: mario, ragioneSociale: Mario Rossi, abilitato: true, ruoli: []}\n",
			exitUsage, "holds more than one YAML document (the second at line 3)"},
		{"three_documents", "---\ndomini: []\n---\ntipiPendenza: []\n---\nruoli: []\n", exitUsage, "the second at line 4"},
		{"marker_before", "---\ndomini:\n  - {idDominio: \"11111111111\", ragioneSociale: Comune A, abilitato: true}\n", exitFailure, "1 of 1 changes failed"},
		{"marker_after", "domini:\n  - {idDominio: \"11111111111\", ragioneSociale: Comune A, abilitato: true}\n---\n# nothing more\n", exitFailure, "1 of 1 changes failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := run(t, "admin", "--config", cfg, "apply", "-f", tempFile(t, "apply.yaml", c.text))
			if exitCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("exit %d (%v), want %d saying %q", exitCode(err), err, c.code, c.message)
			}
		})
	}
}

// TestAdminArgumentsTheServiceRefusesAreUsage: a request built from the
// command line alone (get's id, check's question, grant's and revoke's
// application and scope) that the service answers 400 is a usage error,
// exit 2, as README's exit codes say and as audit explain answers the
// same question: it exited 1, as a failure does. The service's answer is
// the one check (the CLI repeats none) and is printed. A resource that is
// not there (404), a denial (403, or check's 3) and a service that does
// not answer stay what they were.
func TestAdminArgumentsTheServiceRefusesAreUsage(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	startAdminService(t, cfg, "a")
	adminCLI(t, cfg)("apply", "-f", tempFile(t, "app.yaml", `applicazioni:
  - {idA2A: gestionale, principal: gestionale, password: gestionale-pw, abilitato: true, ruoli: []}
`))
	servizio := func(s string) []string {
		return []string{"check", "--principal", "admin", "--api", "BACKOFFICE", "--operation", "servizio", "--servizio", s}
	}
	down := downContext(t)
	for _, c := range []struct {
		name    string
		config  string
		args    []string
		code    int
		message string
	}{
		{"get_bad_id_usage", cfg, []string{"get", "domini", "abc"}, exitUsage, "GET /domini/abc: 400"},
		{"get_absent_failure", cfg, []string{"get", "domini", "99999999999"}, exitFailure, "GET /domini/99999999999: 404"},
		{"check_unknown_operation_usage", cfg, []string{"check", "--principal", "admin", "--api", "PENDENZE", "--operation", "fly"}, exitUsage, `unknown operation \"fly\"`},
		{"check_bad_auth_usage", cfg, []string{"check", "--principal", "admin", "--api", "PENDENZE", "--operation", "list", "--auth", "nope"}, exitUsage, `unknown auth type \"nope\"`},
		{"check_bad_servizio_usage", cfg, servizio("Pendenz"), exitUsage, `unknown servizio \"Pendenz\"`},
		{"check_allowed", cfg, servizio("Pendenze"), 0, ""},
		{"check_denied", cfg, []string{"check", "--principal", "gestionale", "--api", "PENDENZE", "--operation", "list"}, exitDenied, "denied"},
		{"grant_bad_dominio_usage", cfg, []string{"grant", "gestionale", "--api", "PENDENZE", "--domini", "abc", "--tipi", "*"}, exitUsage, `bad id \"abc\"`},
		{"grant_absent_application_failure", cfg, []string{"grant", "nosuch", "--api", "PENDENZE", "--domini", "*", "--tipi", "*"}, exitFailure, "404"},
		{"revoke_bad_id_usage", cfg, []string{"revoke", "bad id!", "--api", "PENDENZE"}, exitUsage, "bad idA2A in the path"},
		{"get_no_service_failure", down, []string{"get", "domini", "abc"}, exitFailure, "connection refused"},
		{"check_no_service_failure", down, servizio("Pendenz"), exitFailure, "connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := run(t, append([]string{"admin", "--config", c.config}, c.args...)...)
			if got := exitCode(err); (err == nil) != (c.code == 0) || (err != nil && got != c.code) {
				t.Fatalf("exit %d (%v), want %d", got, err, c.code)
			}
			if c.message != "" && !strings.Contains(err.Error(), c.message) {
				t.Fatalf("error %v, want one saying %s", err, c.message)
			}
		})
	}
}

// TestAdminContextPathsAreSavedWhole: a context saves the files it
// authenticates with as absolute paths, so it works from any directory:
// a relative --password-file (or --cert, --key, --ca) was saved as typed
// and read against the directory of each later command, which found no
// file there (exit 1) or another one.
func TestAdminContextPathsAreSavedWhole(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	here, elsewhere := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(here, "pw"), []byte("admin-pass-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(here)
	admin := adminCLI(t, cfg)
	admin("context", "set", "rel", "--url", a.url+"/backoffice/rs/basic/v1", "--user", "admin", "--password-file", "pw")
	admin("context", "set", "cert", "--url", a.url+"/backoffice/rs/basic/v1", "--cert", "c.pem", "--key", "sub/c.key", "--ca", "../ca.pem")
	t.Chdir(elsewhere)
	if out, errOut, err := run(t, "admin", "--config", cfg, "--context", "rel", "get", "operatori", "admin", "-o", "json"); err != nil || !strings.Contains(out, `"principal": "admin"`) {
		t.Fatalf("the context from another directory: exit %d %v\n%s%s", exitCode(err), err, out, errOut)
	}
	saved, _ := os.ReadFile(cfg)
	for _, want := range []string{"passwordFile: " + filepath.Join(here, "pw"), "cert: " + filepath.Join(here, "c.pem"),
		"key: " + filepath.Join(here, "sub", "c.key"), "ca: " + filepath.Join(filepath.Dir(here), "ca.pem")} {
		if !strings.Contains(string(saved), want+"\n") {
			t.Errorf("the contexts file lacks %q:\n%s", want, saved)
		}
	}
	// a wrong password file is still refused: 401, exit 1
	admin("context", "set", "wrong", "--url", a.url+"/backoffice/rs/basic/v1", "--user", "admin", "--password-file", tempFile(t, "pw", "wrong-password\n"))
	if _, _, err := run(t, "admin", "--config", cfg, "--context", "wrong", "get", "operatori", "admin"); exitCode(err) != exitFailure || !strings.Contains(err.Error(), "401") {
		t.Fatalf("a wrong password: exit %d %v", exitCode(err), err)
	}
}

// TestAdminContextRefusesCredentialsInTheURL: a --url holding credentials
// (https://user:password@host/…) put the password on the command line,
// saved it in the contexts file and echoed it in context list, and the
// client authenticated with it; it is now a usage error (exit 2) that
// names neither the URL nor the password, and nothing is saved. A URL
// without them is saved.
func TestAdminContextRefusesCredentialsInTheURL(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	for _, c := range []struct {
		name, url string
		code      int
	}{
		{"user_and_password_usage", "http://admin:url-secret-1@127.0.0.1:8080/backoffice/rs/basic/v1", exitUsage},
		{"user_only_usage", "http://url-user-1@127.0.0.1:8080/backoffice/rs/basic/v1", exitUsage},
		{"no_credentials_saved", "http://127.0.0.1:8080/backoffice/rs/basic/v1", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, err := run(t, "admin", "--config", cfg, "context", "set", c.name, "--url", c.url, "--user", "admin", "--password-env", "PW")
			if got := exitCode(err); (err == nil) != (c.code == 0) || (err != nil && got != c.code) {
				t.Fatalf("exit %d (%v), want %d", got, err, c.code)
			}
			saved, _ := os.ReadFile(cfg)
			list := mustRun(t, "admin", "--config", cfg, "context", "list")
			if c.code == 0 {
				if !strings.Contains(list, c.name) {
					t.Fatalf("not saved:\n%s", list)
				}
				return
			}
			if msg := err.Error() + errOut; strings.Contains(msg, "url-secret-1") || strings.Contains(msg, "url-user-1") ||
				!strings.Contains(msg, "--password-file or --password-env") {
				t.Fatalf("error %q", msg)
			}
			if strings.Contains(string(saved)+list, c.name) || strings.Contains(string(saved)+list, "url-secret-1") {
				t.Fatalf("saved:\n%s\n%s", saved, list)
			}
		})
	}
}

// TestAdminContextWithoutItsPassword: a basic context whose
// --password-env variable is not set (or empty), or whose --password-file
// is empty, is refused before any request, naming the variable or the
// file (exit 1): every request went out with an empty password, each a
// 401 that named neither, and each a failed login that the service
// throttles (an apply of many resources locked the principal out for a
// while). With its password, the context works.
func TestAdminContextWithoutItsPassword(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	bo := a.url + "/backoffice/rs/basic/v1"
	admin("context", "set", "env", "--url", bo, "--user", "admin", "--password-env", "PAYAUTHZ_TEST_ADMIN_PW")
	admin("context", "set", "empty-file", "--url", bo, "--user", "admin", "--password-file", tempFile(t, "pw", "\n"))
	get := func(context string) (string, error) {
		out, _, err := run(t, "admin", "--config", cfg, "--context", context, "get", "operatori", "admin", "-o", "json")
		return out, err
	}
	for _, c := range []struct {
		name, context string
		env           *string
		message       string
	}{
		{"variable_not_set", "env", nil, "variable PAYAUTHZ_TEST_ADMIN_PW (--password-env) is not set or empty"},
		{"variable_empty", "env", new(""), "variable PAYAUTHZ_TEST_ADMIN_PW (--password-env) is not set or empty"},
		{"file_empty", "empty-file", nil, "is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != nil {
				t.Setenv("PAYAUTHZ_TEST_ADMIN_PW", *c.env)
			}
			if _, err := get(c.context); exitCode(err) != exitFailure || err == nil || !strings.Contains(err.Error(), c.message) || strings.Contains(err.Error(), "401") {
				t.Fatalf("exit %d (%v), want %d saying %q", exitCode(err), err, exitFailure, c.message)
			}
		})
	}
	t.Setenv("PAYAUTHZ_TEST_ADMIN_PW", "admin-pass-1")
	if out, err := get("env"); err != nil || !strings.Contains(out, `"principal": "admin"`) {
		t.Fatalf("with the variable set: %v\n%s", err, out)
	}
}

// TestAdminApplyRefusesAMalformedCaptcha: a protezione whose captcha is
// not an object is refused before anything is sent (exit 2), as a
// protezione that is not one is: apply compared only the captcha's
// fields, found none, and answered "unchanged" (exit 0) when the rest
// matched. A captcha object is applied (here it reaches for the service,
// which is not there: exit 1).
func TestAdminApplyRefusesAMalformedCaptcha(t *testing.T) {
	cfg := downContext(t)
	for _, c := range []struct {
		name, captcha string
		code          int
		message       string
	}{
		{"string_usage", `"x"`, exitUsage, "protezione.captcha must be an object"},
		{"list_usage", "[1]", exitUsage, "protezione.captcha must be an object"},
		{"null_usage", "", exitUsage, "protezione.captcha must be an object"},
		{"object_applied", "{soglia: 0.5}", exitFailure, "1 of 1 changes failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := tempFile(t, "apply.yaml", "protezione:\n  abilitato: false\n  captcha: "+c.captcha+"\n")
			_, _, err := run(t, "admin", "--config", cfg, "apply", "-f", file)
			if exitCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("exit %d (%v), want %d saying %q", exitCode(err), err, c.code, c.message)
			}
		})
	}
}

// TestAdminCheckAsksAboutEveryResource: admin check takes every resource
// flag audit explain takes, so it can ask the live service about every
// operation of the catalogue. It took eleven of them, and a question about
// an intermediary, a role, an operator, a payment, a receipt or a report
// was the service's 400 (its id required), exit 2, with no flag to give it.
func TestAdminCheckAsksAboutEveryResource(t *testing.T) {
	admin, explain := adminCheckCmd(&adminFlags{}), explainCmd(&auditConfig{})
	explain.Flags().VisitAll(func(fl *pflag.Flag) {
		switch fl.Name {
		case "format", "at", "position", "help":
			return // explain's output and point of history, not the question
		}
		if admin.Flags().Lookup(fl.Name) == nil {
			t.Errorf("admin check has no --%s (%s), which audit explain takes", fl.Name, fl.Usage)
		}
	})

	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	startAdminService(t, cfg, "a")
	for _, args := range [][]string{
		{"--operation", "read-ruolo", "--ruolo", "Amministratore"},
		{"--operation", "read-operatore", "--operatore", "admin"},
	} {
		out, errOut, err := run(t, append([]string{"admin", "--config", cfg, "check", "--principal", "admin", "--api", "BACKOFFICE"}, args...)...)
		if err != nil || !strings.HasPrefix(out, "ALLOW") {
			t.Errorf("check %v: exit %d (%v)\n%s%s", args, exitCode(err), err, out, errOut)
		}
	}
}

// TestAdminApplyComparesSetsAsSets: the lists the service holds as sets
// (scopes, an acl and its rights, an application's grants) are answered
// in the service's order, without duplicates, an api upper-cased. apply
// compared them as the file spelt them,
// so a file listing an acl, a scope or the grants in another order planned
// and reported an update on every apply, where the service wrote nothing:
// a second apply was not 'applied 0 changes', and a dry run showed
// changes there were none. A real change is still shown.
func TestAdminApplyComparesSetsAsSets(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	conf := `domini:
  - {idDominio: "11111111111", ragioneSociale: Comune A, abilitato: true}
  - {idDominio: "22222222222", ragioneSociale: Comune B, abilitato: true}
tipiPendenza:
  - {idTipoPendenza: TARI, descrizione: Tassa rifiuti, abilitato: true, pagamentoSpontaneo: false}
ruoli:
  - idRuolo: Ufficio
    acl: [{servizio: Pendenze, autorizzazioni: [W, R]}, {servizio: Anagrafica Creditore, autorizzazioni: [R]}]
    domini: ["22222222222", "11111111111"]
    tipiPendenza: ["*"]
applicazioni:
  - idA2A: tributi
    autorizzazioniApi:
      - {api: pendenze, domini: ["22222222222", "11111111111"], tipiPendenza: [TARI, TARI]}
      - {api: PAGAMENTO, domini: ["*"], tipiPendenza: ["*"]}
    principal: tributi
    password: tributi-pw-1
    abilitato: true
    ruoli: []
`
	file := tempFile(t, "payauthz.yaml", conf)
	if out := admin("apply", "-f", file); !strings.Contains(out, "applied 5 changes, 0 unchanged, 0 failed") {
		t.Fatalf("apply:\n%s", out)
	}
	before := a.position(t)
	if out := admin("apply", "-f", file, "--dry-run"); !strings.Contains(out, "would apply 0 changes, 5 unchanged") {
		t.Errorf("the dry run of a file the deployment holds plans changes:\n%s", out)
	}
	if out := admin("apply", "-f", file); !strings.Contains(out, "applied 0 changes, 5 unchanged") || a.position(t) != before {
		t.Errorf("a second apply is not a no-op (position %v → %v):\n%s", before, a.position(t), out)
	}
	narrowed := strings.Replace(conf, `domini: ["22222222222", "11111111111"]
    tipiPendenza: ["*"]`, `domini: ["11111111111"]
    tipiPendenza: ["*"]`, 1)
	if out := admin("apply", "-f", tempFile(t, "narrowed.yaml", narrowed)); !strings.Contains(out, "~ ruoli/Ufficio: domini\n") ||
		!strings.Contains(out, "applied 1 changes, 4 unchanged") || a.position(t) == before {
		t.Errorf("a narrowed scope is not applied:\n%s", out)
	}
}

// TestAdminApplyStopsWhenTheServiceDoesNotAnswerTheCaller: an answer that
// is no resource's (the credentials refused, 401, or no answer at all: a
// wrong URL, a TLS failure, a timeout) stops apply at the resource it came
// for, naming it and saying nothing after it was sent. apply went on
// through every resource: with a wrong password each read was one more
// failed login, the service's throttle answering 429 from the sixth and
// locking the principal out from that address; against a URL that never
// answers each resource waited out the 30 s timeout, printing nothing.
func TestAdminApplyStopsWhenTheServiceDoesNotAnswerTheCaller(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	adminCLI(t, cfg)("context", "set", "wrong", "--url", a.url+"/backoffice/rs/basic/v1", "--user", "admin",
		"--password-file", tempFile(t, "pw", "not-the-password\n"))
	var conf strings.Builder
	conf.WriteString("domini:\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&conf, "  - {idDominio: \"%011d\", ragioneSociale: Comune %d, abilitato: true}\n", i, i)
	}
	file := tempFile(t, "apply.yaml", conf.String())
	for _, c := range []struct{ name, config, context, says string }{
		{"wrong_password", cfg, "wrong", "401"},
		{"no_service", downContext(t), "down", "connection refused"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, err := run(t, "admin", "--config", c.config, "--context", c.context, "apply", "-f", file, "--prune")
			if exitCode(err) != exitFailure {
				t.Fatalf("exit %d (%v), want %d", exitCode(err), err, exitFailure)
			}
			if n := strings.Count(errOut, "failed: "); n != 1 || !strings.Contains(errOut, "failed: domini[0] domini/00000000001: ") ||
				!strings.Contains(errOut, c.says) || strings.Contains(errOut, "429") {
				t.Fatalf("%d failures, want the first resource's alone:\n%s", n, errOut)
			}
			if !strings.Contains(out, "applied 0 changes, 0 unchanged, 1 failed") ||
				!strings.Contains(err.Error(), "stopped at domini[0] domini/00000000001") || !strings.Contains(err.Error(), "nothing after it was sent") {
				t.Fatalf("summary:\n%s%v", out, err)
			}
		})
	}
	// the administrator was not locked out by the wrong password's apply
	if out := adminCLI(t, cfg)("--context", "a", "apply", "-f", file); !strings.Contains(out, "applied 8 changes, 0 unchanged, 0 failed") {
		t.Fatalf("apply with the right password:\n%s", out)
	}
}

// TestAdminContextsFileIsTheOwners: the contexts file is mode 0600 after
// context set or use, also when it was there before with another mode
// (copied, or made by hand): os.WriteFile keeps an existing file's mode,
// so a 0644 file stayed readable by everyone, with the users, the files
// they authenticate with and the SPID fiscal codes it names.
func TestAdminContextsFileIsTheOwners(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	if err := os.WriteFile(cfg, []byte("contexts: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(cfg, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	adminCLI(t, cfg)("context", "set", "spid", "--url", "http://localhost:8080/backoffice/rs/spid/v1", "--spid-fiscal-code", "RSSMRA80A01H501U")
	if fi, err := os.Stat(cfg); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("contexts file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}

// TestAdminApplyTellsAFileTheServiceRefuses: apply compares an acl and an
// application's grants as sets, in any order, but the service refuses one
// that names a servizio or an api twice (400: "listed twice"), where it
// takes a scope's duplicates. apply dropped those duplicates too, so a file
// the service refuses planned no change and exited 0 on a deployment that
// already held the entries once, where the same file failed on an empty
// one. It is now planned, sent and its 400 reported.
func TestAdminApplyTellsAFileTheServiceRefuses(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	admin := adminCLI(t, cfg)
	conf := `ruoli:
  - idRuolo: Ufficio
    acl: [{servizio: Pendenze, autorizzazioni: [R]}]
    domini: ["*"]
    tipiPendenza: ["*"]
applicazioni:
  - idA2A: tributi
    autorizzazioniApi:
      - {api: PENDENZE, domini: ["*"], tipiPendenza: ["*"]}
    principal: tributi
    password: tributi-pw-1
    abilitato: true
    ruoli: []
`
	if out := admin("apply", "-f", tempFile(t, "payauthz.yaml", conf)); !strings.Contains(out, "applied 2 changes, 0 unchanged, 0 failed") {
		t.Fatalf("apply:\n%s", out)
	}
	for _, c := range []struct{ name, from, to, plan string }{
		{"acl_servizio_twice", `acl: [{servizio: Pendenze, autorizzazioni: [R]}]`,
			`acl: [{servizio: Pendenze, autorizzazioni: [R]}, {servizio: Pendenze, autorizzazioni: [R]}]`, "~ ruoli/Ufficio: acl\n"},
		{"api_twice", `      - {api: PENDENZE, domini: ["*"], tipiPendenza: ["*"]}`,
			"      - {api: PENDENZE, domini: [\"*\"], tipiPendenza: [\"*\"]}\n      - {api: pendenze, domini: [\"*\"], tipiPendenza: [\"*\"]}",
			"~ applicazioni/tributi: autorizzazioniApi\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := a.position(t)
			file := tempFile(t, c.name+".yaml", strings.Replace(conf, c.from, c.to, 1))
			out, errOut, err := run(t, "admin", "--config", cfg, "apply", "-f", file)
			if exitCode(err) != exitFailure || !strings.Contains(out, c.plan) || !strings.Contains(errOut, "listed twice") {
				t.Fatalf("a file the service refuses: exit %d (%v), want %d, the plan %q and the service's 400:\n%s%s",
					exitCode(err), err, exitFailure, c.plan, out, errOut)
			}
			if a.position(t) != before {
				t.Fatalf("a refused file wrote: position %v → %v", before, a.position(t))
			}
		})
	}
}

// TestAdminApplyPruneGoesOnAfterAFailureOfItsOwn: only a 401 or no answer
// stops apply (stopsApply). prune's first question, who apply runs as (GET
// /profilo), stopped apply whatever its failure: a 503 there skipped the
// protection and said the service had refused the credentials or not
// answered. It is now prune's failure alone, and the protection is still
// applied, as after any other failure.
func TestAdminApplyPruneGoesOnAfterAFailureOfItsOwn(t *testing.T) {
	var protectionWritten atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/profilo":
			http.Error(w, `{"categoria":"INTERNO","codice":"503"}`, http.StatusServiceUnavailable)
		case r.URL.Path == "/v1"+protectionPath && r.Method == http.MethodGet:
			_, _ = w.Write([]byte(`{"abilitato":false}`))
		case r.URL.Path == "/v1"+protectionPath && r.Method == http.MethodPut:
			protectionWritten.Store(true)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	adminCLI(t, cfg)("context", "set", "fake", "--url", srv.URL+"/v1", "--user", "admin", "--password-file", tempFile(t, "pw", "pw\n"))
	file := tempFile(t, "apply.yaml", "domini: []\nprotezione: {abilitato: true}\n")
	out, errOut, err := run(t, "admin", "--config", cfg, "apply", "-f", file, "--prune")
	if exitCode(err) != exitFailure || err == nil || !strings.Contains(errOut, "failed: prune: who am I: ") || !strings.Contains(errOut, "503") {
		t.Fatalf("exit %d (%v), want %d and prune's failure:\n%s%s", exitCode(err), err, exitFailure, out, errOut)
	}
	if strings.Contains(err.Error(), "stopped") || !protectionWritten.Load() || !strings.Contains(out, "applied 1 changes, 0 unchanged, 1 failed") {
		t.Fatalf("a 503 of prune stopped apply (protection written: %v):\n%s%v", protectionWritten.Load(), out, err)
	}
}

// TestAdminTableShowsEveryRowsMembers: `admin list -o table` takes its
// columns from every row, not from the first: a member the first row
// lacks (the service omits empty ones, such as an operator's acl of its
// own) is still a column, and a row without a member shows an empty cell, not
// "null".
func TestAdminTableShowsEveryRowsMembers(t *testing.T) {
	k := resourceKind{name: "operatori", idField: "principal"}
	items := []map[string]any{
		{"principal": "anna", "abilitato": true},
		{"principal": "bruno", "abilitato": false, "acl": []any{map[string]any{"servizio": "Pendenze", "autorizzazioni": []any{"R"}}}},
	}
	var out strings.Builder
	cmd := &cobra.Command{}
	cmd.SetOut(&out)
	if err := printItems(cmd, &adminFlags{output: "table"}, k, items); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two rows:\n%s", out.String())
	}
	if got := strings.Fields(lines[0]); !slices.Equal(got, []string{"PRINCIPAL", "ABILITATO", "ACL"}) {
		t.Fatalf("header %q, want every row's members:\n%s", got, out.String())
	}
	if got := strings.Fields(lines[1]); !slices.Equal(got, []string{"anna", "true"}) {
		t.Fatalf("first row %q, want its absent member empty:\n%s", got, out.String())
	}
	if got := strings.Fields(lines[2]); !slices.Equal(got, []string{"bruno", "false", `[{"autorizzazioni":["R"],"servizio":"Pendenze"}]`}) {
		t.Fatalf("second row %q:\n%s", got, out.String())
	}
}

// TestAdminApplyTellsAWrongBase: a context whose URL is no Backoffice
// base (v2 for v1) answers 404 to every resource, as a resource not yet
// there does, so apply planned every resource as a create: a dry run
// promised changes, and a real run sent the first PUT to fail. apply now
// asks the base, at the first 404, whether it answers GET /profilo; it
// does not, so apply stops there, naming the URL, and writes nothing.
// The right base still plans the creates.
func TestAdminApplyTellsAWrongBase(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	pw := adminPasswordFile(t, t.TempDir())
	adminCLI(t, cfg)("context", "set", "v2", "--url", a.url+"/backoffice/rs/basic/v2", "--user", "admin", "--password-file", pw)
	file := tempFile(t, "apply.yaml", "domini:\n"+
		"  - {idDominio: \"11111111111\", ragioneSociale: Comune A, abilitato: true}\n"+
		"  - {idDominio: \"22222222222\", ragioneSociale: Comune B, abilitato: true}\n")
	before := a.position(t)
	for _, dry := range []bool{true, false} {
		args := []string{"admin", "--config", cfg, "--context", "v2", "apply", "-f", file}
		if dry {
			args = append(args, "--dry-run")
		}
		out, errOut, err := run(t, args...)
		if exitCode(err) != exitFailure {
			t.Fatalf("dry run %v: exit %d (%v), want %d\n%s%s", dry, exitCode(err), err, exitFailure, out, errOut)
		}
		if strings.Contains(out, "+ domini/") || !strings.Contains(errOut, "failed: domini[0] domini/11111111111: "+a.url+"/backoffice/rs/basic/v2 is not a Backoffice API base") ||
			strings.Count(errOut, "failed: ") != 1 || !strings.Contains(err.Error(), "stopped at domini[0] domini/11111111111") {
			t.Fatalf("dry run %v: want no plan and the base named:\n%s%s%v", dry, out, errOut, err)
		}
	}
	if a.position(t) != before {
		t.Fatal("apply against a wrong base wrote")
	}
	if out := adminCLI(t, cfg)("--context", "a", "apply", "-f", file, "--dry-run"); !strings.Contains(out, "+ domini/11111111111") ||
		!strings.Contains(out, "would apply 2 changes, 0 unchanged, 0 failed") {
		t.Fatalf("the right base:\n%s", out)
	}
}
