package domain

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDNEqual(t *testing.T) {
	t.Parallel()
	base := "CN=app1, O=Ente Esempio, C=IT"
	tests := []struct {
		name  string
		other string
		equal bool
	}{
		{"same", "CN=app1, O=Ente Esempio, C=IT", true},
		{"no_spaces_rfc2253", "CN=app1,O=Ente Esempio,C=IT", true},
		{"semicolon_separators", "CN=app1; O=Ente Esempio; C=IT", true},
		{"reversed", "C=IT, O=Ente Esempio, CN=app1", true},
		{"openssl_form", "/C=IT/O=Ente Esempio/CN=app1", true},
		{"openssl_form_forward", "/CN=app1/O=Ente Esempio/C=IT", true},
		{"attribute_type_case", "cn=app1, o=Ente Esempio, c=IT", true},
		{"attribute_type_mixed_case", "Cn=app1, O=Ente Esempio, c=IT", true},
		{"surrounding_spaces", "  CN = app1 ,  O = Ente Esempio , C = IT ", true},
		{"hex_escape", `CN=app\31, O=Ente Esempio, C=IT`, true},
		{"needless_escape_of_space", `CN=app1, O=Ente\ Esempio, C=IT`, true},
		{"extra_rdn", "CN=app1, OU=IT, O=Ente Esempio, C=IT", false},
		{"extra_rdn_openssl", "/C=IT/O=Ente Esempio/OU=IT/CN=app1", false},
		{"missing_rdn", "CN=app1, C=IT", false},
		{"single_rdn", "CN=app1", false},
		{"duplicated_rdn", "CN=app1, CN=app1, O=Ente Esempio, C=IT", false},
		{"different_value", "CN=app2, O=Ente Esempio, C=IT", false},
		{"different_type", "CN=app1, OU=Ente Esempio, C=IT", false},
		{"value_case_differs", "CN=APP1, O=Ente Esempio, C=IT", false},
		{"inner_spaces_differ", "CN=app1, O=Ente  Esempio, C=IT", false},
		{"escaped_leading_space_kept", `CN=\ app1, O=Ente Esempio, C=IT`, false},
		{"rotated_not_reversed", "O=Ente Esempio, C=IT, CN=app1", false},
		{"swapped_middle", "CN=app1, C=IT, O=Ente Esempio", false},
		{"multi_valued_rdn_vs_split", "CN=app1+O=Ente Esempio, C=IT", false},
		{"oid_is_an_alias", "2.5.4.3=app1, O=Ente Esempio, C=IT", true},
		{"long_names_are_aliases", "commonName=app1, organizationName=Ente Esempio, countryName=IT", true},
		{"oid_other_value", "2.5.4.3=app2, O=Ente Esempio, C=IT", false},
	}
	a := mustParseDN(t, base)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := mustParseDN(t, tt.other)
			assertDNEqual(t, a, b, tt.equal)
		})
	}
}

func TestDNEqualEscapesAndMultiValued(t *testing.T) {
	t.Parallel()
	tests := []dnPair{
		{"escaped_comma_vs_hex", `CN=Rossi\, Mario, C=IT`, `CN=Rossi\2C Mario, C=IT`, true},
		{"escaped_comma_vs_lower_hex", `CN=Rossi\, Mario, C=IT`, `CN=Rossi\2c Mario, C=IT`, true},
		{"escaped_comma_is_not_a_separator", `CN=Rossi\, Mario, C=IT`, `CN=Rossi, CN=Mario, C=IT`, false},
		{"escaped_comma_openssl", `CN=Rossi\, Mario, C=IT`, `/C=IT/CN=Rossi, Mario`, true},
		{"utf8_hex_escape", `CN=Citt\C3\A0, C=IT`, "CN=Città, C=IT", true},
		{"multi_valued_order_within_rdn", "CN=x+O=Ente, C=IT", "O=Ente+CN=x, C=IT", true},
		{"multi_valued_reversed_dn", "CN=x+O=Ente, C=IT", "C=IT, O=Ente + CN=x", true},
		{"multi_valued_openssl", "CN=x+O=Ente, C=IT", "/C=IT/O=Ente+CN=x", true},
		{"multi_valued_subset", "CN=x+O=Ente, C=IT", "CN=x, C=IT", false},
		{"escaped_plus_is_not_multi_valued", `CN=x\+O=Ente, C=IT`, "CN=x+O=Ente, C=IT", false},
		{"openssl_unescaped_slash_in_value", "/C=IT/O=A/B Srl/CN=x", `CN=x, O=A/B Srl, C=IT`, true},
		{"openssl_escaped_slash_in_value", `/C=IT/O=A\/B Srl/CN=x`, `CN=x, O=A/B Srl, C=IT`, true},
		{"openssl_unescaped_plus_in_value", "/C=IT/O=A+B/CN=x", `CN=x, O=A\+B, C=IT`, true},
		{"escaped_trailing_space_kept", `CN=a\ , C=IT`, "CN=a, C=IT", false},
		{"hash_value_is_literal", `CN=#414243, C=IT`, "CN=ABC, C=IT", false},
		{"hash_value_escaped_same", `CN=#414243, C=IT`, `CN=\#414243, C=IT`, true},
	}
	runDNPairs(t, tests)
}

// dnPair is two DNs and whether they are equal.
type dnPair struct {
	name  string
	a, b  string
	equal bool
}

// runDNPairs parses each pair, checks DNEqual and DNKey agree with equal
// (assertDNEqual), and that each reads back from its String.
func runDNPairs(t *testing.T, tests []dnPair) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := mustParseDN(t, tt.a)
			b := mustParseDN(t, tt.b)
			assertDNEqual(t, a, b, tt.equal)
			for _, d := range []DN{a, b} {
				readsBack(t, d, tt.name)
			}
		})
	}
}

// assertDNEqual checks DNEqual in both directions and that DNKey agrees.
func assertDNEqual(t *testing.T, a, b DN, equal bool) {
	t.Helper()
	if got := DNEqual(a, b); got != equal {
		t.Fatalf("DNEqual(%q, %q) = %v, want %v", a, b, got, equal)
	}
	if got := DNEqual(b, a); got != equal {
		t.Fatalf("DNEqual is not symmetric for %q, %q", a, b)
	}
	if (DNKey(a) == DNKey(b)) != equal {
		t.Fatalf("DNKey(%q) = %q, DNKey(%q) = %q: key equality disagrees with DNEqual = %v", a, DNKey(a), b, DNKey(b), equal)
	}
}

func TestCanonicalForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, str, key string
	}{
		{"rfc4514", "CN=a, O=b, C=IT", "CN=a,O=b,C=IT", "C=IT,O=b,CN=a"},
		{"reversed_same_key", "C=IT, O=b, CN=a", "C=IT,O=b,CN=a", "C=IT,O=b,CN=a"},
		{"openssl", "/C=IT/O=b/CN=a", "C=IT,O=b,CN=a", "C=IT,O=b,CN=a"},
		{"types_upper_cased", "cn=a,o=b", "CN=a,O=b", "CN=a,O=b"},
		{"escapes_rewritten", `cn = Rossi\2C Mario , o=A\+B ,c=IT`, `CN=Rossi\, Mario,O=A\+B,C=IT`, `C=IT,O=A\+B,CN=Rossi\, Mario`},
		{"specials_escaped", `CN=\"q\"\<x\>\;\\`, `CN=\"q\"\<x\>\;\\`, `CN=\"q\"\<x\>\;\\`},
		{"equals_and_slash_unescaped", `CN=a\=b\/c`, `CN=a=b/c`, `CN=a=b/c`},
		{"leading_hash_and_spaces", `CN=\#x\ \ `, `CN=\#x \ `, `CN=\#x \ `},
		{"control_as_hex", `CN=a\0Ab`, `CN=a\0Ab`, `CN=a\0Ab`},
		{"multi_valued_sorted", "O=z+CN=a+CN=b", "CN=a+CN=b+O=z", "CN=a+CN=b+O=z"},
		{"known_oid_types", "2.5.4.3=a, 1.2.840.113549.1.9.1=#16046d61696c", `CN=a,EMAILADDRESS=mail`, `CN=a,EMAILADDRESS=mail`},
		{"long_names", "commonName=a, organizationIdentifier=VATIT-1, surname=Rossi, givenName=Mario", `CN=a,ORGANIZATIONIDENTIFIER=VATIT-1,SN=Rossi,GN=Mario`, `CN=a,ORGANIZATIONIDENTIFIER=VATIT-1,SN=Rossi,GN=Mario`},
		{"unknown_oid_type", "1.2.3.4=#16046d61696c, 1.2.3.5=x", `1.2.3.4=\#16046d61696c,1.2.3.5=x`, `1.2.3.4=\#16046d61696c,1.2.3.5=x`},
		{"decoded_value_with_a_leading_hash", "CN=#0c0123", `CN=\#`, `CN=\#`},
		{"empty_value", "CN=, O=b", "CN=,O=b", "CN=,O=b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := mustParseDN(t, tt.in)
			if got := d.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
			key, err := CanonicalDN(tt.in)
			if err != nil || key != tt.key {
				t.Errorf("CanonicalDN = %q, %v; want %q", key, err, tt.key)
			}
			if DNKey(d) != key {
				t.Errorf("DNKey %q differs from CanonicalDN %q", DNKey(d), key)
			}
			again, err := ParseDN(d.String())
			if err != nil || !DNEqual(d, again) || again.String() != d.String() {
				t.Errorf("String() %q does not parse back to the same DN: %v", d.String(), err)
			}
		})
	}
}

func TestParseDNErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"blank", "   "},
		{"missing_equals", "CN"},
		{"missing_equals_second_rdn", "CN=a, O"},
		{"empty_type", "=x"},
		{"blank_type", " =x, O=b"},
		{"trailing_comma", "CN=a,"},
		{"leading_comma", ",CN=a"},
		{"empty_rdn", "CN=a,,O=b"},
		{"trailing_plus", "CN=a+"},
		{"dangling_escape", `CN=a\`},
		{"bad_escape", `CN=a\q`},
		{"half_hex_escape", `CN=a\4`},
		{"half_hex_escape_then_text", `CN=a\4x`},
		{"hex_nul", `CN=a\00`},
		{"raw_nul", "CN=a\x00b"},
		{"hex_not_utf8", `CN=a\FF`},
		{"raw_not_utf8", "CN=a\xff"},
		{"space_in_type", "C N=x"},
		{"type_starts_with_hyphen", "-CN=x"},
		{"type_with_underscore", "C_N=x"},
		{"non_ascii_type", "ſN=x"},
		{"escape_in_type", `C\N=x`},
		{"oid_trailing_dot", "1.2.=x"},
		{"oid_empty_arc", "1..2=x"},
		{"oid_leading_zero", "1.02=x"},
		{"oid_letters", "1.2a=x"},
		{"unescaped_quote", `CN=a"b`},
		{"unescaped_angle", "CN=<a>"},
		{"trailing_garbage_quote", `CN=a, O=b"`},
		{"openssl_only_slash", "/"},
		{"openssl_trailing_slash", "/C=IT/"},
		{"openssl_double_slash", "/C=IT//CN=a"},
		{"openssl_no_type", "/abc"},
		{"too_long", "CN=" + strings.Repeat("a", maxDNInput)},
		{"too_much_content", strings.Repeat("CN=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,", 200) + "C=IT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDN(tt.in)
			if err == nil {
				t.Fatalf("ParseDN(%q) = %q, want an error", tt.in, d)
			}
			if !errors.Is(err, ErrBadDN) {
				t.Fatalf("error %v does not wrap ErrBadDN", err)
			}
			if _, err := CanonicalDN(tt.in); err == nil {
				t.Fatalf("CanonicalDN(%q) accepted", tt.in)
			}
		})
	}
}

func TestZeroDNEqualsNothing(t *testing.T) {
	t.Parallel()
	d := mustParseDN(t, "CN=a")
	if DNEqual(DN{}, DN{}) || DNEqual(DN{}, d) || DNEqual(d, DN{}) {
		t.Fatal("the zero DN must equal nothing")
	}
}

func FuzzParseDN(f *testing.F) {
	for _, s := range []string{
		"CN=a, O=b, C=IT", "/C=IT/O=b/CN=a", `CN=Rossi\, Mario,C=IT`, "O=x+CN=y", `CN=\#x`, `CN=a\20`, "cn=é",
		`CN=Citt\C3\A0;O=x`, "/C=IT/O=A/B+C/CN=x", `2.5.4.3=#0403616263`, `CN=\ \ a\ \ `, `CN=a\0D\0A`,
		// Empty; hex escapes of a byte that is not UTF-8, of a NUL; a
		// dangling escape; empty RDNs and attributes in either form.
		"", `CN=\FF`, `CN=\00`, `CN=a\`, "/", "CN=a,,O=b", "CN=a+", "/C=IT//CN=x",
		// Well-known types by any name, values in "#hex" form.
		"organizationIdentifier=VATIT-1, 2.5.4.97=#0c0161", "1.2.840.113549.1.9.1=#1603614062", `CN=#0c0123`, "commonName=#1e020061",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDN(s)
		if !isDN(t, err) {
			return
		}
		canon, _ := readsBack(t, d, s)
		rev, err := ParseDN(d.reversed().String())
		if err != nil || !DNEqual(d, rev) || DNKey(rev) != DNKey(d) {
			t.Fatalf("reverse of %q: equal %v, keys %q %q, err %v", canon, DNEqual(d, rev), DNKey(rev), DNKey(d), err)
		}
		if key, err := CanonicalDN(s); err != nil || key != DNKey(d) {
			t.Fatalf("CanonicalDN(%q) = %q, %v; want %q", s, key, err, DNKey(d))
		}
	})
}

// TestGoCertificateSubject parses what the HTTP layer gets for an ssl
// caller, crypto/x509's pkix.Name.String (RFC 2253 order, Go's escaping,
// unknown attributes as #hex), and matches it against the forms an
// administrator would register.
func TestGoCertificateSubject(t *testing.T) {
	t.Parallel()
	var seq pkix.RDNSequence
	seq = append(seq,
		pkix.RelativeDistinguishedNameSET{{Type: asn1.ObjectIdentifier{2, 5, 4, 6}, Value: "IT"}},
		pkix.RelativeDistinguishedNameSET{{Type: asn1.ObjectIdentifier{2, 5, 4, 10}, Value: `Ente, "Esempio" <srl>`}},
		pkix.RelativeDistinguishedNameSET{
			{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: "node+1"},
			{Type: asn1.ObjectIdentifier{2, 5, 4, 5}, Value: "#42"},
		},
		pkix.RelativeDistinguishedNameSET{{Type: asn1.ObjectIdentifier{1, 2, 3, 4}, Value: "x"}},
	)
	subject := seq.String() // what pkix.Name.String and Certificate.Subject.String print
	got, err := ParseDN(subject)
	if err != nil {
		t.Fatalf("parse Go's %q: %v", subject, err)
	}
	hexX := subject[strings.Index(subject, "1.2.3.4=")+len("1.2.3.4="):]
	hexX = hexX[:strings.IndexByte(hexX, ',')]
	for _, registered := range []string{
		`C=IT, O=Ente\, \"Esempio\" \<srl\>, CN=node\+1+SERIALNUMBER=\#42, 1.2.3.4=` + hexX,
		`1.2.3.4=` + hexX + `, serialNumber=\#42 + cn=node\2B1, o=Ente\2C \22Esempio\22 \3Csrl\3E, c=IT`,
		`/C=IT/O=Ente, "Esempio" <srl>/CN=node+1+SERIALNUMBER=\#42/1.2.3.4=` + hexX,
	} {
		want := mustParseDN(t, registered)
		if !DNEqual(got, want) || DNKey(got) != DNKey(want) {
			t.Errorf("Go's %q and registered %q differ: %q vs %q", subject, registered, got, want)
		}
	}
}

// TestDNOfAttributes: a subject as issued keeps every value exactly, white
// space and control characters around it included, and its String reads
// back to the same DN; what ParseDN refuses it refuses.
func TestDNOfAttributes(t *testing.T) {
	t.Parallel()
	node := mustParseDN(t, "CN=node, O=PagoPA, C=IT")
	for _, tc := range []struct {
		name  string
		cn    string
		equal bool
	}{
		{"same_value", "node", true},
		{"trailing_tab", "node\t", false},
		{"leading_line_break", "\nnode", false},
		{"trailing_crlf", "node\r\n", false},
		{"surrounding_spaces", " node ", false},
		{"inner_control_character", "no\x01de", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := DNOfAttributes([][]AVA{{{Type: "CN", Value: tc.cn}}, {{Type: "O", Value: "PagoPA"}}, {{Type: "C", Value: "IT"}}})
			if err != nil {
				t.Fatal(err)
			}
			again, err := ParseDN(d.String())
			if err != nil || !DNEqual(d, again) || again.rdns[0][0].Value != tc.cn {
				t.Fatalf("%q reads back as %q (%v)", d.String(), again.String(), err)
			}
			if DNEqual(d, node) != tc.equal {
				t.Fatalf("%q equal to %q: %v, want %v", d.String(), node.String(), !tc.equal, tc.equal)
			}
		})
	}
	for name, rdns := range map[string][][]AVA{
		"no_rdn":       nil,
		"empty_rdn":    {{}},
		"bad_type":     {{{Type: "C N", Value: "x"}}},
		"nul_in_value": {{{Type: "CN", Value: "a\x00b"}}},
		"not_utf8":     {{{Type: "CN", Value: "\xff"}}},
		"too_long":     {{{Type: "CN", Value: strings.Repeat("a", maxDNContent)}}},
	} {
		if _, err := DNOfAttributes(rdns); !errors.Is(err, ErrBadDN) {
			t.Errorf("%s: err = %v, want ErrBadDN", name, err)
		}
	}
}

// FuzzDNOfAttributes: a certificate subject as issued (up to three
// attributes, grouped into RDNs by shape) that DNOfAttributes accepts
// prints, by String, to text that ParseDN reads back to the same DN with
// every value exactly as issued; what it refuses wraps ErrBadDN.
func FuzzDNOfAttributes(f *testing.F) {
	f.Add("CN", "node\t", "O", "PagoPA", "C", "IT", uint8(0))
	f.Add("CN", " a ", "OU", "#x", "2.5.4.99", "#0c0161", uint8(1))
	f.Add("cn", "a\\,b", "O", "x+y", "C", `"IT"`, uint8(3))
	f.Add("CN", "\r\n", "O", "=", "C", "\\", uint8(2))
	f.Add("CN", "", "O", "é ", "C", "\u00a0", uint8(0))
	f.Fuzz(func(t *testing.T, t1, v1, t2, v2, t3, v3 string, shape uint8) {
		avas := []AVA{{t1, v1}, {t2, v2}, {t3, v3}}
		// Bit i of shape joins attribute i+1 to the RDN of attribute i.
		rdns := [][]AVA{{avas[0]}}
		for i, a := range avas[1:] {
			if shape&(1<<i) != 0 {
				rdns[len(rdns)-1] = append(rdns[len(rdns)-1], a)
			} else {
				rdns = append(rdns, []AVA{a})
			}
		}
		d, err := DNOfAttributes(rdns)
		if !isDN(t, err) {
			return
		}
		text, again := readsBack(t, d, rdns)
		var want, got []string
		for _, a := range avas {
			typ, _ := canonicalType(a.Type)
			want = append(want, typ+"="+a.Value)
		}
		for _, rdn := range again.rdns {
			for _, a := range rdn {
				got = append(got, a.Type+"="+a.Value)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Fatalf("%q reads back attributes %q, issued %q", text, got, want)
		}
	})
}

// isDN reports whether a parse succeeded; a failure must wrap ErrBadDN.
func isDN(t *testing.T, err error) bool {
	t.Helper()
	if err != nil && !errors.Is(err, ErrBadDN) {
		t.Fatalf("error %v does not wrap ErrBadDN", err)
	}
	return err == nil
}

// readsBack checks that d's text parses back to d (equal, the same text,
// the same key) and returns the text and what it parsed to; from names
// what d was made of.
func readsBack(t *testing.T, d DN, from any) (string, DN) {
	t.Helper()
	text := d.String()
	again, err := ParseDN(text)
	if err != nil {
		t.Fatalf("%q (from %q) does not parse: %v", text, from, err)
	}
	if !DNEqual(d, again) || again.String() != text || DNKey(again) != DNKey(d) {
		t.Fatalf("%q (from %q) reads back as %q", text, from, again.String())
	}
	return text, again
}

// berHex is "#" and the hex of a DER value of the universal tag with the
// given content (short form length), as RFC 4514 writes a value by its BER.
func berHex(tag byte, content string) string {
	return "#" + hex.EncodeToString(append([]byte{tag, byte(len(content))}, content...))
}

// TestDNAttributeTypeAliases: a well-known attribute type is one type
// whichever of its OID, OpenSSL short name or long name spells it (case
// aside), and its value written as RFC 4514's "#" and the hex of a DER
// string is that string; an unknown OID, and a "#hex" that is not a DER
// string, stay as written.
func TestDNAttributeTypeAliases(t *testing.T) {
	t.Parallel()
	const orgID = "VATIT-15376371009"
	cert := "C=IT, O=PagoPA S.p.A., organizationIdentifier=" + orgID + ", emailAddress=nodo@pagopa.it, CN=nodo"
	tests := []dnPair{
		{"openssl_oneline", cert, "C = IT, O = PagoPA S.p.A., organizationIdentifier = VATIT-15376371009, emailAddress = nodo@pagopa.it, CN = nodo", true},
		{"openssl_slashes", cert, "/C=IT/O=PagoPA S.p.A./organizationIdentifier=VATIT-15376371009/emailAddress=nodo@pagopa.it/CN=nodo", true},
		{"oids_plain_values", cert, "CN=nodo, 1.2.840.113549.1.9.1=nodo@pagopa.it, 2.5.4.97=VATIT-15376371009, O=PagoPA S.p.A., C=IT", true},
		{"oids_utf8_ber", cert, "CN=nodo,1.2.840.113549.1.9.1=" + berHex(0x0c, "nodo@pagopa.it") + ",2.5.4.97=" + berHex(0x0c, orgID) + ",O=PagoPA S.p.A.,C=IT", true},
		{"oids_printable_ia5_ber_upper_hex", cert, "CN=nodo,1.2.840.113549.1.9.1=" + strings.ToUpper(berHex(0x16, "nodo@pagopa.it")) + ",2.5.4.97=" + strings.ToUpper(berHex(0x13, orgID)) + ",O=PagoPA S.p.A.,C=IT", true},
		{"type_case", cert, "c=IT, o=PagoPA S.p.A., ORGANIZATIONIDENTIFIER=VATIT-15376371009, EmailAddress=nodo@pagopa.it, commonname=nodo", true},
		{"wrong_organization_identifier", cert, "C=IT, O=PagoPA S.p.A., organizationIdentifier=VATIT-15376371008, emailAddress=nodo@pagopa.it, CN=nodo", false},
		{"wrong_organization_identifier_ber", cert, "C=IT, O=PagoPA S.p.A., 2.5.4.97=" + berHex(0x0c, "VATIT-15376371008") + ", emailAddress=nodo@pagopa.it, CN=nodo", false},
		{"organization_identifier_missing", cert, "C=IT, O=PagoPA S.p.A., emailAddress=nodo@pagopa.it, CN=nodo", false},
		{"organization_identifier_shuffled", cert, "C=IT, organizationIdentifier=VATIT-15376371009, O=PagoPA S.p.A., emailAddress=nodo@pagopa.it, CN=nodo", false},
		{"organization_identifier_is_not_o", cert, "C=IT, O=PagoPA S.p.A., O=VATIT-15376371009, emailAddress=nodo@pagopa.it, CN=nodo", false},
		{"e_is_not_an_alias", cert, "C=IT, O=PagoPA S.p.A., organizationIdentifier=VATIT-15376371009, E=nodo@pagopa.it, CN=nodo", false},
		{"escaped_hash_is_text", "2.5.4.97=" + orgID, `2.5.4.97=\` + berHex(0x0c, orgID), false},
		{"hex_escaped_hash_is_text", "2.5.4.97=" + orgID, `2.5.4.97=\23` + berHex(0x0c, orgID)[1:], false},
		{"escaped_hash_same_text", `2.5.4.97=\` + berHex(0x0c, orgID), `organizationIdentifier=\` + berHex(0x0c, orgID), true},
		{"unknown_oid_stays_literal", "1.2.3.4=" + orgID, "1.2.3.4=" + berHex(0x0c, orgID), false},
		{"unknown_oid_hex_case_matters", "1.2.3.4=" + berHex(0x0c, orgID), "1.2.3.4=" + strings.ToUpper(berHex(0x0c, orgID)), false},
		{"unknown_oid_same_hex", "1.2.3.4=" + berHex(0x0c, orgID), "1.2.3.4=" + berHex(0x0c, orgID), true},
		{"numeric_string", "serialNumber=12345", "2.5.4.5=" + berHex(0x12, "12345"), true},
		{"t61_string", "title=Dott", "2.5.4.12=" + berHex(0x14, "Dott"), true},
		{"bmp_string", "CN=ab", "2.5.4.3=#1e0400610062", true},
		{"octet_string_is_literal", "CN=abc", "CN=" + berHex(0x04, "abc"), false},
		{"octet_string_literal_text", "CN=" + berHex(0x04, "abc"), `CN=\` + berHex(0x04, "abc"), true},
		{"printable_with_a_bad_character_is_literal", "CN=a@b", "CN=" + berHex(0x13, "a@b"), false},
		{"utf8_not_utf8_is_literal", `CN=` + berHex(0x0c, "\xff"), `CN=\` + berHex(0x0c, "\xff"), true},
		{"utf8_with_nul_is_literal", `CN=` + berHex(0x0c, "a\x00b"), `CN=\` + berHex(0x0c, "a\x00b"), true},
		{"constructed_string_is_literal", "CN=abc", "CN=#2c050c03616263", false},
		{"non_minimal_length_is_literal", "CN=abc", "CN=#0c8103616263", false},
		{"trailing_bytes_are_literal", "CN=abc", "CN=" + berHex(0x0c, "abc") + "00", false},
		{"odd_hex_is_literal", "CN=abc", "CN=" + berHex(0x0c, "abc") + "0", false},
		{"bare_hash_is_literal", `CN=\#`, "CN=#", true},
		{"go_names_and_aliases", "C=IT,ST=RM,L=Roma,STREET=Via Roma 1,POSTALCODE=00100,O=x,OU=y,CN=z,SERIALNUMBER=1,DC=it,UID=u,GN=Mario,SN=Rossi,TITLE=Dott",
			"countryName=IT,stateOrProvinceName=RM,localityName=Roma,streetAddress=Via Roma 1,postalCode=00100,organizationName=x,organizationalUnitName=y,commonName=z,serialNumber=1,domainComponent=it,userId=u,givenName=Mario,surname=Rossi,title=Dott", true},
		{"go_names_and_oids", "C=IT,ST=RM,L=Roma,STREET=Via Roma 1,POSTALCODE=00100,O=x,OU=y,CN=z,SERIALNUMBER=1,DC=it,UID=u,GN=Mario,SN=Rossi,TITLE=Dott",
			"2.5.4.6=IT,2.5.4.8=RM,2.5.4.7=Roma,2.5.4.9=Via Roma 1,2.5.4.17=00100,2.5.4.10=x,2.5.4.11=y,2.5.4.3=z,2.5.4.5=1,0.9.2342.19200300.100.1.25=it,0.9.2342.19200300.100.1.1=u,2.5.4.42=Mario,2.5.4.4=Rossi,2.5.4.12=Dott", true},
		{"sn_is_surname_not_serial_number", "SN=1", "SERIALNUMBER=1", false},
		{"multi_valued_alias", "CN=a+2.5.4.97=x", "organizationIdentifier=x+commonName=a", true},
	}
	runDNPairs(t, tests)
}

// TestAttributeTypesAreDistinct: every spelling in the table of
// well-known types names one type only.
func TestAttributeTypesAreDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, at := range attributeTypes {
		for _, n := range []string{at.name, upperASCII(at.long), at.oid} {
			if other, dup := seen[n]; dup && other != at.name {
				t.Errorf("%s names both %s and %s", n, other, at.name)
			}
			seen[n] = at.name
			if got, known := canonicalType(n); !known || got != at.name {
				t.Errorf("canonicalType(%q) = %q, %v; want %q", n, got, known, at.name)
			}
		}
	}
}

// TestDNOfSubject: a certificate subject's attributes of well-known types
// are those types with their string values, so that the subject equals its
// OpenSSL, RFC 4514-with-OIDs and "#hex" spellings; an unknown OID stays
// the OID with its DER in hex; a well-known type whose value is not a
// string is refused.
func TestDNOfSubject(t *testing.T) {
	t.Parallel()
	var (
		oidC     = asn1.ObjectIdentifier{2, 5, 4, 6}
		oidO     = asn1.ObjectIdentifier{2, 5, 4, 10}
		oidOrgID = asn1.ObjectIdentifier{2, 5, 4, 97}
		oidEmail = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
		oidCN    = asn1.ObjectIdentifier{2, 5, 4, 3}
	)
	subject := func(orgID string) pkix.RDNSequence {
		return pkix.RDNSequence{
			{{Type: oidC, Value: "IT"}}, {{Type: oidO, Value: "PagoPA S.p.A."}}, {{Type: oidOrgID, Value: orgID}},
			{{Type: oidEmail, Value: "nodo@pagopa.it"}}, {{Type: oidCN, Value: "nodo"}},
		}
	}
	issued := subject("VATIT-15376371009")
	got, err := DNOfSubject(issued)
	if err != nil {
		t.Fatal(err)
	}
	readsBack(t, got, issued)
	if want := "CN=nodo,EMAILADDRESS=nodo@pagopa.it,ORGANIZATIONIDENTIFIER=VATIT-15376371009,O=PagoPA S.p.A.,C=IT"; got.String() != want {
		t.Errorf("String() = %q, want %q", got.String(), want)
	}
	for _, registered := range []string{
		"C = IT, O = PagoPA S.p.A., organizationIdentifier = VATIT-15376371009, emailAddress = nodo@pagopa.it, CN = nodo",
		"/C=IT/O=PagoPA S.p.A./organizationIdentifier=VATIT-15376371009/emailAddress=nodo@pagopa.it/CN=nodo",
		"CN=nodo, 1.2.840.113549.1.9.1=nodo@pagopa.it, 2.5.4.97=VATIT-15376371009, O=PagoPA S.p.A., C=IT",
		issued.String(), // Go's, and so the principal before aliases: the OIDs with "#" and the DER in hex
	} {
		assertDNEqual(t, got, mustParseDN(t, registered), true)
	}
	if !strings.Contains(issued.String(), "2.5.4.97=#") {
		t.Fatalf("Go prints %q: not the #hex form this test means", issued.String())
	}
	other, err := DNOfSubject(subject("VATIT-15376371008"))
	if err != nil {
		t.Fatal(err)
	}
	assertDNEqual(t, got, other, false)
	assertDNEqual(t, other, mustParseDN(t, "C=IT, O=PagoPA S.p.A., organizationIdentifier=VATIT-15376371009, emailAddress=nodo@pagopa.it, CN=nodo"), false)

	unknown, err := DNOfSubject(pkix.RDNSequence{{{Type: asn1.ObjectIdentifier{1, 2, 3, 4}, Value: "x"}}})
	if err != nil || unknown.String() != `1.2.3.4=\#130178` {
		t.Errorf("unknown OID: %q, %v; want its DER in hex", unknown.String(), err)
	}
	for name, value := range map[string]any{"octets": []byte("x"), "integer": int64(1), "nil": nil} {
		if d, err := DNOfSubject(pkix.RDNSequence{{{Type: oidOrgID, Value: value}}}); !errors.Is(err, ErrBadDN) {
			t.Errorf("%s organizationIdentifier: %q, %v; want ErrBadDN", name, d.String(), err)
		}
	}
	for name, value := range map[string]any{"not_utf8": "\xff", "nul": "a\x00b"} {
		if d, err := DNOfSubject(pkix.RDNSequence{{{Type: oidOrgID, Value: value}}}); !errors.Is(err, ErrBadDN) {
			t.Errorf("%s organizationIdentifier: %q, %v; want ErrBadDN", name, d.String(), err)
		}
	}
}

// TestDNBMPStringNUL: a BMPString whose last character is NUL holds a NUL,
// although encoding/asn1 strips it as a terminator: its "#hex" is not the
// string without it, and a subject holding it is refused, of a well-known
// type or not.
func TestDNBMPStringNUL(t *testing.T) {
	t.Parallel()
	assertDNEqual(t, mustParseDN(t, "CN=#1e0400780000"), mustParseDN(t, "CN=x"), false)
	assertDNEqual(t, mustParseDN(t, "CN=#1e020078"), mustParseDN(t, "CN=x"), true)
	for _, oid := range []asn1.ObjectIdentifier{{2, 5, 4, 3}, {2, 5, 4, 97}, {1, 2, 3, 4}} {
		for value, ok := range map[string]bool{"0078": true, "00780000": false, "0000": false} {
			b, _ := hex.DecodeString(value)
			raw, err := asn1.Marshal(pkix.RDNSequence{{{Type: oid, Value: asn1.RawValue{Tag: asn1.TagBMPString, Bytes: b}}}})
			if err != nil {
				t.Fatal(err)
			}
			d, err := DNOfRawSubject(raw)
			if ok != (err == nil) || err != nil && !errors.Is(err, ErrBadDN) {
				t.Errorf("%s BMPString %s: %q, %v; want accepted %v", oid, value, d.String(), err, ok)
			}
		}
	}
	if _, err := DNOfRawSubject([]byte{0x30, 0x00, 0x00}); !errors.Is(err, ErrBadDN) {
		t.Errorf("trailing bytes: %v, want ErrBadDN", err)
	}
}

// FuzzDNOfSubject: a subject attribute (a well-known or an unknown type,
// its value any DER) that DNOfSubject accepts is, as a DN, equal to that
// attribute written as RFC 4514's OID=#hex of its DER, and reads back; a
// well-known type's value is its string, and the "#hex" of a string is
// that string whichever string type holds it.
func FuzzDNOfSubject(f *testing.F) {
	f.Add(uint8(0), []byte{0x0c, 0x03, 'a', 'b', 'c'})
	f.Add(uint8(1), []byte{0x13, 0x01, 'x'})
	f.Add(uint8(2), []byte{0x16, 0x03, 'a', '@', 'b'})
	f.Add(uint8(3), []byte{0x1e, 0x02, 0x00, 'a'})
	f.Add(uint8(4), []byte{0x04, 0x01, 'x'})
	f.Add(uint8(5), []byte{0x14, 0x01, 0xff})
	f.Add(uint8(0), []byte{0x0c, 0x01, 0x00})
	f.Add(uint8(0), []byte{0x0c, 0x02, '#', '#'})
	oids := []asn1.ObjectIdentifier{{2, 5, 4, 97}, {2, 5, 4, 3}, {1, 2, 840, 113549, 1, 9, 1}, {0, 9, 2342, 19200300, 100, 1, 25}, {1, 2, 3, 4}, {2, 5, 4, 4}}
	f.Fuzz(func(t *testing.T, which uint8, der []byte) {
		oid := oids[int(which)%len(oids)]
		if len(der) > 1000 { // its hex within what a DN holds
			return
		}
		var v any
		if rest, err := asn1.Unmarshal(der, &v); err != nil || len(rest) != 0 {
			return
		}
		written := oid.String() + "=#" + hex.EncodeToString(der)
		parsed, err := ParseDN(written)
		if err != nil {
			t.Fatalf("%q does not parse: %v", written, err)
		}
		readsBack(t, parsed, written)
		_, known := canonicalType(oid.String())
		s, isString := v.(string)
		var raw asn1.RawValue
		_, _ = asn1.Unmarshal(der, &raw)
		if bmpEndsInNUL(raw) { // holds a NUL encoding/asn1 strips: literal, and no subject (TestDNBMPStringNUL)
			known = false
		}
		if known && isString && utf8.ValidString(s) && !strings.Contains(s, "\x00") && parsed.rdns[0][0].Value != s {
			t.Fatalf("%q reads value %q, want the string %q", written, parsed.rdns[0][0].Value, s)
		}
		d, err := DNOfSubject(pkix.RDNSequence{{{Type: oid, Value: v}}})
		if !isDN(t, err) {
			return
		}
		readsBack(t, d, written)
		again, _ := asn1.Marshal(v)
		if !DNEqual(d, mustParseDN(t, oid.String()+"=#"+hex.EncodeToString(again))) {
			t.Fatalf("subject %q differs from its DER form %x", d.String(), again)
		}
		if known && !DNEqual(d, parsed) {
			t.Fatalf("subject %q differs from %q", d.String(), written)
		}
	})
}
