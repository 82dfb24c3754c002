package httpapi

import (
	"regexp"
	"strings"
	"testing"
)

var (
	inputTag   = regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`)
	idAttr     = regexp.MustCompile(`\bid="([^"]+)"`)
	typeAttr   = regexp.MustCompile(`\btype="([^"]+)"`)
	headingTag = regexp.MustCompile(`<h([1-6])\b`)
)

// adminPages are the console's pages an administrator of newWorld opens,
// pendenza the path of a pendenza's page: every page of the menu, each
// registry's blank form and a record of it, and a 404.
func adminPages(pendenza string) []string {
	return []string{"/console/", "/console/pendenze", pendenza, "/console/pagamenti",
		"/console/riconciliazioni", "/console/rendicontazioni", "/console/riscossioni", "/console/domini",
		"/console/domini?nuovo", "/console/domini/" + d1, "/console/tipi", "/console/tipi?nuovo", "/console/applicazioni",
		"/console/applicazioni?nuova", "/console/applicazioni/appA", "/console/operatori", "/console/operatori?nuovo",
		"/console/operatore?principal=opD1", "/console/ruoli", "/console/ruoli?nuovo", "/console/ruoli/opD1",
		"/console/intermediari", "/console/intermediari?nuovo", "/console/impostazioni", "/console/manutenzione",
		"/console/eventi", "/console/audit", "/console/domini/" + dNone}
}

// TestConsoleAccessibilityBasics checks every page an administrator sees:
// lang="it", a <label for> for every visible input, headings that never
// skip a level, and one h1.
func TestConsoleAccessibilityBasics(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.createPendenza(t, "appA", "a11y-1", d1, t1, citizen1)
	cc := w.consoleClient(t)
	cc.get("/console/login").expect(t, 200)
	pages := []string{"/console/login"}
	cc.login(adminUser, adminPass)
	pages = append(pages, adminPages("/console/pendenze/appA/a11y-1")...)
	for _, path := range pages {
		t.Run(strings.Trim(strings.NewReplacer("/", "_", "?", "_", "=", "_").Replace(path), "_"), func(t *testing.T) {
			p := cc.get(path)
			if p.Status != 200 && p.Status != 404 {
				t.Fatalf("status %d", p.Status)
			}
			if !strings.Contains(p.Body, `<html lang="it">`) {
				t.Fatal(`no <html lang="it">`)
			}
			for _, tag := range inputTag.FindAllString(p.Body, -1) {
				if m := typeAttr.FindStringSubmatch(tag); m != nil && (m[1] == "hidden" || m[1] == "submit") {
					continue
				}
				id := idAttr.FindStringSubmatch(tag)
				if id == nil || !strings.Contains(p.Body, `<label for="`+id[1]+`">`) {
					t.Fatalf("no label for %s", tag)
				}
			}
			level, h1 := 0, 0
			for _, m := range headingTag.FindAllStringSubmatch(p.Body, -1) {
				l := int(m[1][0] - '0')
				if l > level+1 {
					t.Fatalf("heading h%d after h%d", l, level)
				}
				if l == 1 {
					h1++
				}
				level = l
			}
			if h1 != 1 {
				t.Fatalf("%d h1 headings", h1)
			}
		})
	}
}
