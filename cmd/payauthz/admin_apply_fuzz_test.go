package main

import (
	"bytes"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzApplyFile reads arbitrary files as admin apply does before it sends
// anything (parseConfiguration, byKind, checkIDs): a file is refused with
// an error or read, never a panic; every resource of a file read has a
// kind admin knows and an id that is a non-empty string, no other of its
// kind's; and what was read, written back as YAML, reads to the same
// configuration (apply's file and export's output are one format).
// Run: go test ./cmd/payauthz -run '^$' -fuzz FuzzApplyFile -fuzztime 1m -parallel 1
func FuzzApplyFile(f *testing.F) {
	for _, s := range []string{
		"domini:\n  - idDominio: \"01234567890\"\n    ragioneSociale: Ente\n",
		"domini:\n  - idDominio: 01234567890\n", "Domini:\n  - idDominio: \"1\"\nDOMINI:\n  - idDominio: \"1\"\n",
		"ruoli:\n  - idRuolo: r\n    acl: [{servizio: Pendenze, autorizzazioni: [R, W]}]\n",
		"operatori:\n  - principal: op\n    password: x\n---\napplicazioni: []\n", "---\n", "--- \n...\n", "",
		"protezione:\n  abilitato: true\n  captcha: {serverURL: 'http://x', soglia: .NaN}\n", "protezione: 1\n",
		"protezione:\n  captcha: []\n", "nonesiste: []\n", "domini: [null, 1]\n", "domini: {}\n", "[1, 2]\n", "!!binary x\n",
		"a: &a [*a]\n", "domini:\n  - &x {idDominio: \"1\"}\n  - *x\n", "tipiPendenza:\n  - idTipoPendenza: !!str 1\n    x: !!timestamp 2026-01-01\n",
		"domini:\n  - {idDominio: \"\\xff\", x: -.0}\n", "intermediari:\n  - idIntermediario: i\n    connettoreNodo: {principal: p, password: s}\n",
		"? [a]\n: 1\n", "applicazioni:\n  - idA2A: a\n    <<: {principal: p}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		conf, prot, err := readApplyFile(b)
		if err != nil {
			return
		}
		for name, items := range conf {
			k, err := kindOf(name)
			if err != nil || k.name != name {
				t.Fatalf("%q: kind %q read (%v)", b, name, err)
			}
			seen := map[string]bool{}
			for i, it := range items {
				id, ok := it[k.idField].(string)
				if !ok || id == "" || seen[id] {
					t.Fatalf("%q: %s[%d] read with id %#v", b, name, i, it[k.idField])
				}
				seen[id] = true
			}
		}
		again, err := yaml.Marshal(asApplyFile(conf, prot))
		if err != nil {
			t.Fatalf("%q: read, then not written back: %v", b, err)
		}
		conf2, prot2, err := readApplyFile(again)
		if err != nil {
			t.Fatalf("%q read, written back as %q, which is refused: %v", b, again, err)
		}
		third, err := yaml.Marshal(asApplyFile(conf2, prot2))
		if err != nil || !bytes.Equal(again, third) {
			t.Fatalf("%q read as %q, then as %q (%v)", b, again, third, err)
		}
	})
}

// asApplyFile is a file's content again: its kinds, and its protection
// when it has one.
func asApplyFile(conf configuration, prot map[string]any) map[string]any {
	out := map[string]any{}
	for name, items := range conf {
		out[name] = items
	}
	if prot != nil {
		out[protectionKey] = prot
	}
	return out
}

// readApplyFile is what admin apply reads of a file before it asks the
// service anything.
func readApplyFile(b []byte) (configuration, map[string]any, error) {
	conf, prot, err := parseConfiguration(b)
	if err != nil {
		return nil, nil, err
	}
	if conf, err = byKind(conf); err != nil {
		return nil, nil, err
	}
	if err := checkIDs(conf); err != nil {
		return nil, nil, err
	}
	return conf, prot, nil
}
