package httpapi

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/payauthz/payauthz/domain"
)

// The browser tests drive a real Chromium (Debian's chromium package;
// .ci/run installs it) with chromedp against the real server on loopback.
// They skip only when no Chromium is installed. Screenshots of the main
// pages go to the test's temp dir, and also to $PAYAUTHZ_CONSOLE_SHOTS
// when set (the README's pictures in docs/ come from there).

func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium installed: the console's browser tests need Debian's chromium package (apt-get install chromium; .ci/run installs it)")
	return ""
}

type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots []string // dirs screenshots are written to
	// dialogs counts JavaScript dialogs (alert, confirm) opened: none may.
	dialogs atomic.Int32
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(t)), chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, base: base, shots: []string{t.TempDir()}}
	if dir := os.Getenv("PAYAUTHZ_CONSOLE_SHOTS"); dir != "" {
		b.shots = append(b.shots, dir)
	}
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			b.dialogs.Add(1)
			go func() { _ = chromedp.Run(ctx, cdppage.HandleJavaScriptDialog(false)) }()
		}
	})
	if err := chromedp.Run(ctx); err != nil { // one is installed (chromiumPath): it must start
		t.Fatalf("the Chromium on PATH does not start: %v", err)
	}
	return b
}

func (b *browser) run(actions ...chromedp.Action) {
	b.t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// open navigates to a console path and waits for its main content.
func (b *browser) open(path string) {
	b.t.Helper()
	b.run(chromedp.Navigate(b.base+path), chromedp.WaitReady("main"))
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	var s string
	b.run(chromedp.Text(sel, &s, chromedp.ByQuery))
	return s
}

func (b *browser) shot(name string) {
	b.t.Helper()
	var png []byte
	b.run(chromedp.FullScreenshot(&png, 100))
	for _, dir := range b.shots {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}

func (b *browser) login(user, pass string) {
	b.t.Helper()
	b.open("/console/login")
	b.run(chromedp.SendKeys("#username", user, chromedp.ByQuery), chromedp.SendKeys("#password", pass, chromedp.ByQuery),
		chromedp.Click("#accedi", chromedp.ByQuery), chromedp.WaitVisible("nav.menu", chromedp.ByQuery))
}

func (b *browser) logout() {
	b.t.Helper()
	b.run(chromedp.Click(".esci button", chromedp.ByQuery), chromedp.WaitVisible("#username", chromedp.ByQuery))
}

// save submits the page's form and waits for the write's position.
func (b *browser) save() {
	b.t.Helper()
	// Drop the previous write's notice first, so that only the next
	// page's notice satisfies the wait.
	var ok bool
	b.run(chromedp.Evaluate(`document.getElementById("scritto")?.remove(); true`, &ok),
		chromedp.Click("#salva", chromedp.ByQuery), chromedp.WaitVisible("#scritto", chromedp.ByQuery))
}

func TestConsoleBrowser(t *testing.T) {
	w := newWorld(t)
	sv := newSiteverify(t)
	b := newBrowser(t, w.httpURL)
	p := w.createPendenza(t, "appA", "br-1", d1, t1, citizen1)
	w.createPendenza(t, "appB", "br-d2", d2, t1, citizen2)
	pay := map[string]any{"pendenze": []map[string]any{{"idDominio": d1, "numeroAvviso": p.NumeroAvviso}}}

	t.Run("log_in", func(t *testing.T) {
		b.open("/console/login")
		b.shot("login")
		b.login(adminUser, adminPass)
		if got := b.text("h1"); got != "Profilo" {
			t.Fatalf("h1 = %q", got)
		}
		b.shot("profilo")
	})

	t.Run("granting_flow_effective_at_once", func(t *testing.T) {
		b.open("/console/applicazioni?nuova")
		b.run(chromedp.SendKeys("#idA2A", "appWeb", chromedp.ByQuery),
			chromedp.SendKeys("#principal", "appWeb", chromedp.ByQuery),
			chromedp.SendKeys("#password", pw, chromedp.ByQuery),
			chromedp.Click("#api_PAGAMENTO", chromedp.ByQuery),
			chromedp.SetValue("#domini_PAGAMENTO", d1, chromedp.ByQuery),
			chromedp.SetValue("#tipi_PAGAMENTO", t1, chromedp.ByQuery))
		b.shot("applicazione-nuova")
		b.save()
		w.do(t, "POST", "/pagamento/rs/basic/v2/pagamenti", pay, as("appWeb")).expect(t, 201, "")
		b.shot("applicazione-salvata")

		b.run(chromedp.Click("#api_PAGAMENTO", chromedp.ByQuery)) // uncheck: revoke
		b.save()
		w.do(t, "POST", "/pagamento/rs/basic/v2/pagamenti", pay, as("appWeb")).expect(t, 403, "403000")
		b.open("/console/applicazioni")
		b.shot("applicazioni")
	})

	t.Run("entity_named_like_a_script_is_text", func(t *testing.T) {
		b.open("/console/domini?nuovo")
		b.run(chromedp.SendKeys("#idDominio", "33333333333", chromedp.ByQuery),
			chromedp.SendKeys("#ragioneSociale", "<script>alert(1)</script>", chromedp.ByQuery))
		b.save()
		b.open("/console/domini")
		var names []string
		b.run(chromedp.Evaluate(`Array.from(document.querySelectorAll("td.ragione")).map(e => e.textContent)`, &names))
		if !slices.Contains(names, "<script>alert(1)</script>") {
			t.Fatalf("entity names as text: %q", names)
		}
		if n := b.dialogs.Load(); n != 0 {
			t.Fatalf("%d JavaScript dialogs opened", n)
		}
		b.shot("domini")
	})

	t.Run("explain_for_a_past_date", func(t *testing.T) {
		time.Sleep(1100 * time.Millisecond)
		past := time.Now().In(domain.Rome).Truncate(time.Second) // the form reads Rome's clock
		time.Sleep(1100 * time.Millisecond)
		w.putApp(t, "appLate", "appLate", pw, true, apiGrant("PAGAMENTO", []string{d1}, []string{"*"}))
		b.open("/console/audit")
		b.run(chromedp.SendKeys("#principal", "appLate", chromedp.ByQuery),
			chromedp.SendKeys("#operazione", "profilo", chromedp.ByQuery),
			chromedp.Click("#spiega", chromedp.ByQuery), chromedp.WaitVisible("#risposta", chromedp.ByQuery))
		if got := b.text("#esito"); got != "allow" {
			t.Fatalf("now: esito %q", got)
		}
		var ok bool
		b.run(chromedp.Evaluate(`document.getElementById("risposta").remove(); document.getElementById("data").value = "`+past.Format("2006-01-02T15:04:05")+`"; true`, &ok),
			chromedp.Click("#spiega", chromedp.ByQuery), chromedp.WaitVisible("#risposta", chromedp.ByQuery))
		if got := b.text("#esito"); got != "unauthenticated" {
			t.Fatalf("at %s: esito %q", past, got)
		}
		b.shot("audit")
	})

	t.Run("evidence_of_a_payment_across_two_roles", func(t *testing.T) {
		// A payment of a pendenza of each entity, read by an operator
		// whose two roles give Pagamenti R on one entity each: allowed,
		// each role covering in part.
		w.putApp(t, "appBoth", "appBoth", pw, true, apiGrant("PENDENZE", []string{d1, d2}, []string{"*"}),
			apiGrant("PAGAMENTO", []string{d1, d2}, []string{"*"}))
		w.createPendenza(t, "appBoth", "both-d1", d1, t1, citizen1)
		w.createPendenza(t, "appBoth", "both-d2", d2, t1, citizen1)
		var payment struct{ ID string }
		w.must(t, "POST", "/pagamento/rs/basic/v2/pagamenti", map[string]any{"pendenze": []map[string]any{
			{"idA2A": "appBoth", "idPendenza": "both-d1"}, {"idA2A": "appBoth", "idPendenza": "both-d2"}}}, as("appBoth")).decode(t, &payment)
		for _, d := range []string{d1, d2} {
			w.putRole(t, "pagamenti"+d, acl{aclOf("Pagamenti", "R")}, []string{d}, []string{"*"})
		}
		w.putOperator(t, "opBoth", pw, true, "pagamenti"+d1, "pagamenti"+d2)
		w.do(t, "GET", bo+"/pagamenti/"+payment.ID, nil, as("opBoth")).expect(t, 200, "")
		w.do(t, "GET", bo+"/pagamenti/"+payment.ID, nil, as("opD1")).expect(t, 403, "403000")

		b.open("/console/audit")
		b.run(chromedp.SendKeys("#principal", "opBoth", chromedp.ByQuery),
			chromedp.SetValue("#api", "BACKOFFICE", chromedp.ByQuery),
			chromedp.SendKeys("#operazione", "servizio", chromedp.ByQuery),
			chromedp.SendKeys("#servizio", "Pagamenti", chromedp.ByQuery),
			chromedp.SendKeys("#autorizzazione", "R", chromedp.ByQuery),
			chromedp.SendKeys("#idPagamento", payment.ID, chromedp.ByQuery),
			chromedp.Click("#spiega", chromedp.ByQuery), chromedp.WaitVisible("#risposta", chromedp.ByQuery))
		if got := b.text("#esito"); got != "allow" {
			t.Fatalf("esito %q", got)
		}
		var rows [][]string
		b.run(chromedp.Evaluate(`Array.from(document.querySelectorAll("#risposta tbody tr")).map(r => Array.from(r.cells).map(c => c.textContent))`, &rows))
		if len(rows) != 2 {
			t.Fatalf("evidence rows: %q", rows)
		}
		for i, d := range []string{d1, d2} {
			if r := rows[i]; r[1] != "pagamenti"+d || r[6] != "in parte" {
				t.Fatalf("evidence row %d: %q, want role pagamenti%s covering in part", i, r, d)
			}
		}
		b.shot("audit-in-parte")
	})

	t.Run("maintenance_and_pendenze", func(t *testing.T) {
		b.open("/console/manutenzione?principal=appWeb")
		if b.text("#applicata") == "" {
			t.Fatal("no applied position")
		}
		b.shot("manutenzione")
		b.open("/console/pendenze?idDominio=" + d1)
		if !strings.Contains(b.text("table"), "appA/br-1") {
			t.Fatal("pendenza of d1 not listed")
		}
		b.shot("pendenze")
	})

	t.Run("role_grid_and_event_log", func(t *testing.T) {
		b.open("/console/ruoli/opD1")
		var checked bool
		b.run(chromedp.Evaluate(`document.getElementById("acl_5_W").checked`, &checked))
		if !checked {
			t.Fatal("role opD1's Pendenze W is not checked in the grid")
		}
		b.shot("ruolo")
		b.open("/console/eventi?tipo=ApplicationAPIAuthorized")
		if !strings.Contains(b.text("table"), "appWeb") {
			t.Fatal("the grant of appWeb is not in the event log")
		}
		b.shot("eventi")
	})

	t.Run("settings_switch_captcha_on", func(t *testing.T) {
		w.do(t, "POST", pgPublic+"/pagamenti", noticeRef(p)).expect(t, 201, "")
		b.open("/console/impostazioni")
		b.run(chromedp.Click("#abilitato", chromedp.ByQuery),
			chromedp.SetValue("#serverURL", sv.URL+"/siteverify", chromedp.ByQuery),
			chromedp.SendKeys("#secretKey", svSecret, chromedp.ByQuery),
			chromedp.SetValue("#timeoutMs", "300", chromedp.ByQuery))
		b.save()
		w.do(t, "POST", pgPublic+"/pagamenti", noticeRef(p)).expect(t, 403, "403000")
		var secret string
		b.run(chromedp.Value("#secretKey", &secret, chromedp.ByQuery))
		if secret != "" {
			t.Fatal("the secret is shown back")
		}
		b.shot("impostazioni")
	})

	t.Run("limited_operator_sees_only_its_entity", func(t *testing.T) {
		b.logout()
		b.login("opD1", pw)
		b.open("/console/pendenze")
		body := b.text("main")
		if !strings.Contains(body, "appA/br-1") || strings.Contains(body, "br-d2") || strings.Contains(body, d2) {
			t.Fatalf("opD1 sees:\n%s", body)
		}
		b.open("/console/pendenze/appB/br-d2")
		if got := b.text("main"); !strings.Contains(got, "403000") {
			t.Fatalf("other entity's pendenza:\n%s", got)
		}
		b.shot("operatore-limitato-403")
	})
}

// TestConsoleNarrowWindow opens every page an administrator sees in a
// window as narrow as a phone's (390 CSS pixels): none may be wider than
// the window, so that the page never scrolls sideways with its header and
// menu left behind; a wide table scrolls inside its own box instead.
func TestConsoleNarrowWindow(t *testing.T) {
	w := newWorld(t)
	w.createPendenza(t, "appA", "narrow-1", d1, t1, citizen1)
	b := newBrowser(t, w.httpURL)
	b.login(adminUser, adminPass)
	b.run(chromedp.EmulateViewport(390, 900))
	for _, path := range adminPages("/console/pendenze/appA/narrow-1") {
		b.open(path)
		var wide []string
		b.run(chromedp.Evaluate(`(() => {
			const w = document.documentElement.clientWidth, out = [];
			if (document.documentElement.scrollWidth > w) out.push("page " + document.documentElement.scrollWidth + "px");
			for (const e of document.querySelectorAll("body *")) {
				const r = e.getBoundingClientRect();
				if (r.right > w + 0.5 && !e.closest(".scorre")) out.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " to " + Math.round(r.right) + "px");
			}
			return out.slice(0, 5);
		})()`, &wide))
		if len(wide) > 0 {
			t.Errorf("%s is wider than a 390px window: %s", path, strings.Join(wide, ", "))
		}
	}
}
