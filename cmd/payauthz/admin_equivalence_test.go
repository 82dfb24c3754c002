package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
	"go.yaml.in/yaml/v3"
)

// richConfigYAML is a configuration where scopes matter: an intermediary
// with its node connector; enabled and disabled entities and types; roles
// scoped to one entity, to one type, to everything and to nothing;
// operators with several roles, a personal role, a SPID fiscal code, and
// one disabled; applications with different grants on three APIs, one
// with a certificate subject, one disabled; and the public API protection.
const richConfigYAML = `intermediari:
  - idIntermediario: INT01
    denominazione: Intermediario Uno
    abilitato: true
    connettoreNodo: {principal: "CN=nodo,O=PagoPA,C=IT"}
domini:
  - {idDominio: "11111111111", ragioneSociale: Comune A, idIntermediario: INT01, abilitato: true}
  - {idDominio: "22222222222", ragioneSociale: Comune B, abilitato: true}
  - {idDominio: "33333333333", ragioneSociale: Comune C, abilitato: false}
tipiPendenza:
  - {idTipoPendenza: TARI, descrizione: Tassa rifiuti, abilitato: true, pagamentoSpontaneo: false}
  - {idTipoPendenza: IMU, descrizione: Imposta municipale, abilitato: true, pagamentoSpontaneo: true}
  - {idTipoPendenza: COSAP, descrizione: Occupazione suolo, abilitato: false, pagamentoSpontaneo: true}
ruoli:
  - idRuolo: PendenzeA
    acl: [{servizio: Pendenze, autorizzazioni: [R]}, {servizio: Pagamenti, autorizzazioni: [R]}]
    domini: ["11111111111"]
    tipiPendenza: [TARI]
  - idRuolo: AnagraficaB
    acl: [{servizio: Anagrafica Creditore, autorizzazioni: [R, W]}, {servizio: Rendicontazioni e Incassi, autorizzazioni: [R]}]
    domini: ["22222222222"]
    tipiPendenza: ["*"]
  - idRuolo: Revisore
    acl: [{servizio: Giornale degli Eventi, autorizzazioni: [R]}, {servizio: Configurazione e manutenzione, autorizzazioni: [R]}, {servizio: Anagrafica Ruoli, autorizzazioni: [R]}]
    domini: ["*"]
    tipiPendenza: ["*"]
  - idRuolo: Nessuno
    acl: [{servizio: Pendenze, autorizzazioni: [R, W]}]
    domini: []
    tipiPendenza: []
operatori:
  - {principal: mario, ragioneSociale: Mario Rossi, password: mario-password-1, abilitato: true, ruoli: [PendenzeA, AnagraficaB]}
  - principal: lucia
    ragioneSociale: Lucia Bianchi
    password: lucia-password-1
    abilitato: true
    ruoli: [Revisore, Nessuno]
    acl: [{servizio: Pendenze, autorizzazioni: [R, W]}]
    domini: ["22222222222"]
    tipiPendenza: [IMU]
  - {principal: RSSMRA80A01H501U, ragioneSociale: Operatore SPID, abilitato: true, ruoli: [AnagraficaB]}
  - {principal: sospeso, ragioneSociale: Sospeso, password: sospeso-password, abilitato: false, ruoli: [Revisore]}
applicazioni:
  - idA2A: gestionale
    principal: gestionale
    password: gestionale-pw
    abilitato: true
    ruoli: [PendenzeA]
    autorizzazioniApi:
      - {api: PENDENZE, domini: ["11111111111", "22222222222"], tipiPendenza: [TARI]}
      - {api: PAGAMENTO, domini: ["*"], tipiPendenza: ["*"]}
      - {api: RAGIONERIA, domini: ["22222222222"], tipiPendenza: ["*"]}
  - idA2A: portale
    principal: "CN=portale,O=Ente,C=IT"
    abilitato: true
    ruoli: []
    autorizzazioniApi:
      - {api: PAGAMENTO, domini: ["11111111111"], tipiPendenza: [IMU]}
      - {api: PENDENZE, domini: ["*"], tipiPendenza: [IMU]}
  - idA2A: ufficio
    principal: ufficio
    password: ufficio-password
    abilitato: true
    ruoli: []
    acl:
      - {servizio: Pendenze, autorizzazioni: [R]}
    domini: ["22222222222"]
    tipiPendenza: [TARI]
  - idA2A: spento
    principal: spento
    password: spento-password
    abilitato: false
    ruoli: [Revisore]
    autorizzazioniApi:
      - {api: PENDENZE, domini: ["*"], tipiPendenza: ["*"]}
protezione:
  abilitato: true
  captcha:
    serverURL: http://127.0.0.1:9/siteverify
    secretKey: captcha-secret-1
    soglia: 0.5
    parametro: gRecaptchaResponse
    denyOnFail: true
    timeoutMs: 1000
`

// supplySecrets adds to an export the secrets it omits, as whoever applies
// it supplies them: the protection cannot be enabled without its captcha
// secret, and the credentials of its principals (supplyCredentials).
func supplySecrets(t *testing.T, exported string, m *projections.ReadModel) string {
	t.Helper()
	var doc struct {
		Rest       map[string]any `yaml:",inline"`
		Protezione struct {
			Rest    map[string]any `yaml:",inline"`
			Captcha map[string]any `yaml:"captcha"`
		} `yaml:"protezione"`
	}
	if err := yaml.Unmarshal([]byte(supplyCredentials(t, exported, m)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Protezione.Captcha == nil {
		t.Fatalf("no captcha section in the export:\n%s", exported)
	}
	doc.Protezione.Captcha["secretKey"] = "captcha-secret-1"
	passwords := 0
	for _, op := range doc.Rest["operatori"].([]any) {
		if _, ok := op.(map[string]any)["password"]; ok {
			passwords++
		}
	}
	if passwords < 3 {
		t.Fatalf("%d operators with a password in the export:\n%s", passwords, exported)
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// supplyCredentials gives each operator and application of an export that
// has a password or an API key in m (the deployment exported) one, as
// whoever applies it supplies them: whether a principal has one decides
// whether it can authenticate with basic or apikey at all, and PATCH
// /profilo (the decisions assume the secrets valid).
func supplyCredentials(t *testing.T, exported string, m *projections.ReadModel) string {
	t.Helper()
	var doc struct {
		Rest         map[string]any   `yaml:",inline"`
		Operatori    []map[string]any `yaml:"operatori,omitempty"`
		Applicazioni []map[string]any `yaml:"applicazioni,omitempty"`
	}
	if err := yaml.Unmarshal([]byte(exported), &doc); err != nil {
		t.Fatal(err)
	}
	give := func(entry map[string]any, password, apiKey string) {
		if password != "" {
			entry["password"] = "restored-password-1"
		}
		if apiKey != "" {
			entry["apiKey"] = "restored-api-key-0123456789"
		}
	}
	for _, op := range doc.Operatori {
		if o, ok := m.Operator(fmt.Sprint(op["principal"])); ok {
			give(op, o.PasswordHash, o.APIKeyHash)
		}
	}
	for _, app := range doc.Applicazioni {
		if a, ok := m.Application(fmt.Sprint(app["idA2A"])); ok {
			give(app, a.PasswordHash, a.APIKeyHash)
		}
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// atPosition is how the explain trail names the event that shaped a
// principal: its position differs between deployments.
var atPosition = regexp.MustCompile(`at position [0-9]+`)

// liveModel rebuilds the read models of the log in dataDir, read live
// through the running service's reader access.
func liveModel(t *testing.T, dataDir string) *projections.ReadModel {
	t.Helper()
	m, err := (&auditConfig{DataDir: dataDir, Store: "jetstream", NoSnapshots: true, LogLevel: "error"}).modelAt(context.Background(), projections.Until{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// decisions answers, from m, who-can for every operation of the audit
// catalogue over a grid of resources, and explain for every principal
// under every auth type. Log positions are left out: they differ between
// deployments, the decisions must not.
func decisions(m *projections.ReadModel, principals []string) map[string]string {
	out := map[string]string{}
	for _, op := range audit.Catalogue() {
		for _, r := range resourceGrid(op) {
			rj, _ := json.Marshal(r)
			key := op.Key() + " " + string(rj)
			who, err := audit.WhoCan(m, op.API, op.Name, r)
			if err != nil {
				out[key+" who-can"] = "error " + err.Error()
				continue // the query is malformed for this operation: explain says the same
			}
			who.Position = 0
			for i := range who.Holders {
				who.Holders[i].PrincipalPosition = 0
			}
			sort.Slice(who.Holders, func(i, j int) bool {
				return who.Holders[i].Principal+who.Holders[i].Auth < who.Holders[j].Principal+who.Holders[j].Auth
			})
			b, _ := json.Marshal(who)
			out[key+" who-can"] = string(b)
			for _, p := range principals {
				for _, auth := range domain.AuthTypes {
					x, err := audit.Explain(m, audit.Query{Principal: p, Auth: auth, API: op.API, Operation: op.Name, Resource: r})
					if err != nil {
						out[key+" explain "+p+" "+auth.String()] = "error " + err.Error()
						continue
					}
					x.Position, x.PrincipalPosition = 0, 0
					b, _ := json.Marshal(x)
					out[key+" explain "+p+" "+auth.String()] = atPosition.ReplaceAllString(string(b), "at position N")
				}
			}
		}
	}
	return out
}

// resourceGrid is the resources an operation is asked about: every
// combination of entity (none, enabled in or out of scopes, disabled,
// unknown), type (likewise) and creditor application; Backoffice service
// rights over every service and right; and stored-object ids (which no
// configuration holds: not found, alike on both).
func resourceGrid(op *audit.Operation) []audit.Resource {
	var out []audit.Resource
	services := [][2]string{{"", ""}}
	if op.API == domain.APIBackoffice && op.Name == "servizio" {
		services = nil
		for _, s := range domain.Services {
			services = append(services, [2]string{s.String(), "R"}, [2]string{s.String(), "W"})
		}
	}
	for _, sr := range services {
		for _, d := range []string{"", "11111111111", "22222222222", "33333333333", "99999999999"} {
			for _, tp := range []string{"", "TARI", "IMU", "COSAP", "NESSUNO"} {
				for _, a2a := range []string{"", "gestionale", "portale"} {
					r := audit.Resource{Service: sr[0], Right: sr[1], IDDominio: d, IDTipoPendenza: tp, IDA2A: a2a}
					out = append(out, r)
					if a2a != "" {
						r.IDPendenza, r.NumeroAvviso, r.IDPagamento, r.IDRiconciliazione = "P1", "301000000000000001", "PAY1", "RIC1"
						out = append(out, r)
					}
				}
			}
		}
	}
	return out
}

// TestAdminExportApplyReproducesEveryDecision: a deployment configured
// with richConfigYAML, exported and applied to an empty deployment,
// makes every decision of the audit catalogue the same way: who-can of
// every operation over the resource grid, and explain (outcome, rule,
// detail, trail, evidence) of every principal of either deployment, a
// citizen, an anonymous caller and an unknown name, under every auth type.
func TestAdminExportApplyReproducesEveryDecision(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "admin.yaml")
	a := startAdminService(t, cfg, "a")
	conf := tempFile(t, "rich.yaml", richConfigYAML)
	if out := mustRun(t, "admin", "--config", cfg, "apply", "-f", conf); !strings.Contains(out, " 0 failed") {
		t.Fatalf("apply:\n%s", out)
	}
	exported := mustRun(t, "admin", "--config", cfg, "export")
	if strings.Contains(exported, "captcha-secret-1") || strings.Contains(exported, "password") {
		t.Fatalf("the export holds a secret:\n%s", exported)
	}
	exp := tempFile(t, "exported.yaml", supplySecrets(t, exported, liveModel(t, a.data)))
	b := startAdminService(t, cfg, "b")
	if out := mustRun(t, "admin", "--config", cfg, "--context", "b", "apply", "-f", exp); !strings.Contains(out, " 0 failed") {
		t.Fatalf("apply of the export:\n%s", out)
	}
	ma, mb := liveModel(t, a.data), liveModel(t, b.data)

	// Every principal either deployment knows, and the callers no
	// configuration names.
	seen := map[string]bool{"": true, "*": true, "VRDGPP80A01H501U": true, "sconosciuto": true}
	for _, m := range []*projections.ReadModel{ma, mb} {
		for _, app := range m.Applications() {
			seen[app.Principal] = true
		}
		for _, o := range m.Operators() {
			seen[o.Principal] = true
		}
	}
	principals := make([]string, 0, len(seen))
	for p := range seen {
		principals = append(principals, p)
	}
	sort.Strings(principals)
	if len(principals) < 12 {
		t.Fatalf("principals: %v", principals)
	}

	da, db := decisions(ma, principals), decisions(mb, principals)
	if len(da) != len(db) {
		t.Fatalf("%d decisions on a, %d on b", len(da), len(db))
	}
	allowedOps := map[string]bool{}
	diffs := 0
	for k, va := range da {
		if vb := db[k]; va != vb {
			if diffs++; diffs <= 5 {
				t.Errorf("%s differs:\n a: %s\n b: %s", k, va, vb)
			}
		}
		if strings.Contains(k, " explain ") && strings.Contains(va, `"esito":"allow"`) {
			allowedOps[strings.SplitN(k, " ", 2)[0]] = true
		}
	}
	if diffs > 0 {
		t.Fatalf("%d of %d decisions differ", diffs, len(da))
	}
	// The grid is not trivially all-denied: each API has allowed decisions.
	var notAllowed []string
	for _, op := range audit.Catalogue() {
		if !allowedOps[op.Key()] {
			notAllowed = append(notAllowed, op.Key())
		}
	}
	for _, api := range []domain.API{domain.APIBackoffice, domain.APIPendenze, domain.APIPagamento, domain.APIRagioneria} {
		some := false
		for k := range allowedOps {
			some = some || strings.HasPrefix(k, api.String()+"/")
		}
		if !some {
			t.Errorf("no allowed decision on %s", api)
		}
	}
	t.Logf("%d decisions compared over %d operations and %d principals; operations never allowed on this configuration "+
		"(they need stored pendenze, payments or reconciliations): %v", len(da), len(audit.Catalogue()), len(principals), notAllowed)
}
