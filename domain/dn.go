package domain

import (
	"cmp"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The canonical distinguished name of the contract (API.md section 9),
// defined once: ssl callers are looked up by DNKey and node connectors
// matched by DNEqual; nothing else in payauthz parses a DN.
//
// Choices where RFC 4514 leaves room or the contract is silent:
//   - attribute types are case-insensitive (upper-cased, ASCII only); the
//     well-known types of attributeTypes are aliased: a type's OID, its
//     OpenSSL short name and its long name are one type, written by the
//     short name ("2.5.4.97", "organizationIdentifier" are
//     ORGANIZATIONIDENTIFIER; "2.5.4.3", "commonName" are CN). No other
//     name is an alias ("E" is not EMAILADDRESS), and an unknown OID is
//     only itself;
//   - values are compared exactly, byte for byte, after trimming unescaped
//     surrounding white space and resolving escapes: no case folding, no
//     collapsing of inner spaces (a certificate subject is matched as
//     issued);
//   - a value of a well-known type written "#hex" (RFC 4514's BER form,
//     the '#' not escaped) that is the DER of a string Go's encoding/asn1
//     reads (UTF8String, PrintableString, IA5String, T61String,
//     NumericString, BMPString), valid UTF-8 without a NUL (a BMPString's
//     final NUL, which encoding/asn1 strips, counts), is that string,
//     as the certificate side reads the attribute (DNOfSubject). Any other
//     "#hex", and every one of an unknown type, is kept as that literal
//     text, not decoded, so it matches the same text (as Go's
//     pkix.Name.String prints attributes it has no name for);
//   - an RDN's attributes are a set (CN=a+O=b equals O=b+CN=a); the RDN
//     sequence is compared in the written order or exactly reversed.

// attributeTypes are the well-known attribute types: the ones Go's pkix
// names, the two more RFC 4514 names (DC, UID), and those eIDAS and
// personal certificates carry. name is the canonical type, OpenSSL's short
// name upper-cased; long is OpenSSL's long name.
var attributeTypes = [...]struct{ name, long, oid string }{
	{"C", "countryName", "2.5.4.6"},
	{"ST", "stateOrProvinceName", "2.5.4.8"},
	{"L", "localityName", "2.5.4.7"},
	{"STREET", "streetAddress", "2.5.4.9"},
	{"POSTALCODE", "postalCode", "2.5.4.17"},
	{"O", "organizationName", "2.5.4.10"},
	{"OU", "organizationalUnitName", "2.5.4.11"},
	{"CN", "commonName", "2.5.4.3"},
	{"SERIALNUMBER", "serialNumber", "2.5.4.5"},
	{"DC", "domainComponent", "0.9.2342.19200300.100.1.25"},
	{"UID", "userId", "0.9.2342.19200300.100.1.1"},
	{"ORGANIZATIONIDENTIFIER", "organizationIdentifier", "2.5.4.97"},
	{"EMAILADDRESS", "emailAddress", "1.2.840.113549.1.9.1"},
	{"GN", "givenName", "2.5.4.42"},
	{"SN", "surname", "2.5.4.4"},
	{"TITLE", "title", "2.5.4.12"},
}

// typeAliases maps every spelling of a well-known type, upper-cased, to
// its canonical type.
var typeAliases = func() map[string]string {
	m := make(map[string]string, 3*len(attributeTypes))
	for _, at := range attributeTypes {
		m[at.name], m[upperASCII(at.long)], m[at.oid] = at.name, at.name, at.name
	}
	return m
}()

// canonicalType returns the type t (valid, as written) upper-cased, or its
// canonical type when it is a well-known one (known).
func canonicalType(t string) (typ string, known bool) {
	u := upperASCII(t)
	if c, ok := typeAliases[u]; ok {
		return c, true
	}
	return u, false
}

// AVA is one attribute of a relative distinguished name: the type
// upper-cased, the value with escapes resolved and surrounding spaces
// trimmed.
type AVA struct {
	Type  string
	Value string
}

// DN is a parsed distinguished name: its RDNs in the order written, each
// RDN's attributes sorted. The zero DN is equal to nothing. A DN is
// immutable and safe for concurrent use.
type DN struct {
	rdns [][]AVA
}

// ErrBadDN is returned (wrapped) for a string that is not a distinguished
// name.
var ErrBadDN = errors.New("not a distinguished name")

// maxDNInput bounds the text parsed; maxDNContent bounds what it holds
// (types and unescaped values), so that the canonical form of anything
// accepted (at most three bytes per content byte) parses again.
const (
	maxDNInput   = 16384
	maxDNContent = 4096
)

// ParseDN reads a distinguished name in RFC 4514 / RFC 2253 form
// ("CN=a, O=b, C=IT", either order, ';' also separating RDNs) or OpenSSL's
// one-line form ("/C=IT/O=b/CN=a"); '+' joins the attributes of a
// multi-valued RDN in both. Escapes are RFC 4514's: a backslash before one
// of , + " \ < > ; = # space (and / for the OpenSSL form), or two hex
// digits. In the RFC form a value may not hold an unescaped " < or >; in the
// OpenSSL form, which escapes nothing, a segment that does not start with
// "TYPE=" continues the previous value ("/O=A/B/CN=x" has O "A/B").
//
// It rejects, wrapping ErrBadDN: an empty or over-long string, invalid
// UTF-8 (also when produced by hex escapes), a NUL, an empty RDN or
// attribute, a missing '=', an empty or malformed attribute type (a letter
// then letters, digits or '-'; or a dotted OID), and bad or dangling
// escapes.
func ParseDN(s string) (DN, error) {
	if len(s) > maxDNInput {
		return DN{}, fmt.Errorf("%w: too long", ErrBadDN)
	}
	if !utf8.ValidString(s) {
		return DN{}, fmt.Errorf("%w: not UTF-8", ErrBadDN)
	}
	s = trimUnescaped(s)
	if s == "" {
		return DN{}, fmt.Errorf("%w: empty", ErrBadDN)
	}
	openssl := s[0] == '/'
	var rdnTexts []string
	if openssl {
		rdnTexts = splitOpenSSL(s[1:], '/')
	} else {
		rdnTexts = splitUnescaped(s, ',', true)
	}
	b := dnBuilder{dn: DN{rdns: make([][]AVA, 0, len(rdnTexts))}}
	for _, rdnText := range rdnTexts {
		var avaTexts []string
		if openssl {
			avaTexts = splitOpenSSL(rdnText, '+')
		} else {
			avaTexts = splitUnescaped(rdnText, '+', false)
		}
		rdn := make([]AVA, 0, len(avaTexts))
		for _, avaText := range avaTexts {
			ava, err := parseAVA(avaText, !openssl)
			if err != nil {
				return DN{}, err
			}
			rdn = append(rdn, ava)
		}
		if err := b.add(rdn); err != nil {
			return DN{}, err
		}
	}
	return b.dn, nil
}

// DNOfAttributes returns the DN whose RDNs are rdns, in this order, each
// value exactly as held: a certificate's subject as issued, which is not
// text, so nothing is trimmed or unescaped. A well-known type may be given
// by any of its names (attributeTypes). Its String writes every value
// so that ParseDN reads it back unchanged (control characters as hex
// escapes), so a subject "CN=node\t" never reads as "CN=node". It rejects,
// wrapping ErrBadDN, what ParseDN would: no RDN, an empty RDN, a bad
// attribute type, a value that is not UTF-8 or holds a NUL, too much
// content.
func DNOfAttributes(rdns [][]AVA) (DN, error) {
	if len(rdns) == 0 {
		return DN{}, fmt.Errorf("%w: empty", ErrBadDN)
	}
	b := dnBuilder{dn: DN{rdns: make([][]AVA, 0, len(rdns))}}
	for _, in := range rdns {
		if len(in) == 0 {
			return DN{}, fmt.Errorf("%w: empty RDN", ErrBadDN)
		}
		rdn := make([]AVA, 0, len(in))
		for _, a := range in {
			if !validAttrType(a.Type) {
				return DN{}, fmt.Errorf("%w: bad attribute type %q", ErrBadDN, a.Type)
			}
			if !plainValue(a.Value) {
				return DN{}, fmt.Errorf("%w: a value is not UTF-8 or holds a NUL", ErrBadDN)
			}
			typ, _ := canonicalType(a.Type)
			rdn = append(rdn, AVA{Type: typ, Value: a.Value})
		}
		if err := b.add(rdn); err != nil {
			return DN{}, err
		}
	}
	return b.dn, nil
}

// DNOfSubject returns a certificate subject as issued (its RDN sequence as
// encoding/asn1 reads it) as a DN, its RDNs last first (RFC 2253's order,
// as Go and OpenSSL print subjects): DNOfAttributes of its attributes.
// An attribute of a well-known type (attributeTypes) is that type and its
// string value, as ParseDN reads the type by any of its names and its
// value in "#hex" form; a value that is not a string is refused (wrapping
// ErrBadDN), never taken as "#hex" text a registered value could equal.
// Any other attribute is its OID and "#" with the hex of its DER, as
// pkix.Name.String and RFC 4514 write it.
func DNOfSubject(rdns pkix.RDNSequence) (DN, error) {
	out := make([][]AVA, 0, len(rdns))
	for i := len(rdns) - 1; i >= 0; i-- {
		rdn := make([]AVA, 0, len(rdns[i]))
		for _, tv := range rdns[i] {
			a, err := subjectAttribute(tv)
			if err != nil {
				return DN{}, err
			}
			rdn = append(rdn, a)
		}
		out = append(out, rdn)
	}
	return DNOfAttributes(out)
}

// rawRDNSET and rawAttribute read a subject's values as encoded, for
// DNOfRawSubject.
type (
	rawRDNSET    []rawAttribute
	rawAttribute struct {
		Type  asn1.ObjectIdentifier
		Value asn1.RawValue
	}
)

// DNOfRawSubject is DNOfSubject of a certificate's DER subject (its
// RawSubject), read wholly, once: each value is read as encoding/asn1
// reads it into a pkix.AttributeTypeAndValue, after a BMPString whose last
// character is NUL, which encoding/asn1 strips as a terminator, is
// refused (wrapping ErrBadDN): that value holds a NUL, and would otherwise
// be the string without it.
func DNOfRawSubject(raw []byte) (DN, error) {
	var values []rawRDNSET
	if rest, err := asn1.Unmarshal(raw, &values); err != nil || len(rest) != 0 {
		return DN{}, fmt.Errorf("%w: not a DER subject", ErrBadDN)
	}
	rdns := make(pkix.RDNSequence, len(values))
	for i, rdn := range values {
		set := make(pkix.RelativeDistinguishedNameSET, len(rdn))
		for j, a := range rdn {
			if bmpEndsInNUL(a.Value) {
				return DN{}, fmt.Errorf("%w: a BMPString ending in NUL", ErrBadDN)
			}
			var v any
			if rest, err := asn1.Unmarshal(a.Value.FullBytes, &v); err != nil || len(rest) != 0 {
				return DN{}, fmt.Errorf("%w: not a DER subject", ErrBadDN)
			}
			set[j] = pkix.AttributeTypeAndValue{Type: a.Type, Value: v}
		}
		rdns[i] = set
	}
	return DNOfSubject(rdns)
}

// bmpEndsInNUL reports whether v is a BMPString whose last character is
// NUL (encoding/asn1 drops it).
func bmpEndsInNUL(v asn1.RawValue) bool {
	n := len(v.Bytes)
	return v.Class == asn1.ClassUniversal && v.Tag == asn1.TagBMPString && n >= 2 && v.Bytes[n-1] == 0 && v.Bytes[n-2] == 0
}

func subjectAttribute(tv pkix.AttributeTypeAndValue) (AVA, error) {
	oid := tv.Type.String()
	if typ, known := canonicalType(oid); known {
		s, ok := tv.Value.(string)
		if !ok {
			return AVA{}, fmt.Errorf("%w: a %s that is not a string", ErrBadDN, typ)
		}
		return AVA{Type: typ, Value: s}, nil
	}
	der, err := asn1.Marshal(tv.Value)
	if err != nil {
		return AVA{}, fmt.Errorf("%w: a %s value that is not DER: %v", ErrBadDN, oid, err)
	}
	return AVA{Type: oid, Value: "#" + hex.EncodeToString(der)}, nil
}

// derString returns the string whose DER is the hex h (of a "#hex" value),
// when encoding/asn1 reads it as one, wholly, and it is valid UTF-8
// without a NUL (what a value may hold), a BMPString's last character
// included (encoding/asn1 strips a NUL there).
func derString(h string) (string, bool) {
	der, err := hex.DecodeString(h)
	if err != nil {
		return "", false
	}
	var raw asn1.RawValue
	if rest, err := asn1.Unmarshal(der, &raw); err != nil || len(rest) != 0 || bmpEndsInNUL(raw) {
		return "", false
	}
	var v any
	if _, err := asn1.Unmarshal(der, &v); err != nil {
		return "", false
	}
	s, ok := v.(string)
	return s, ok && plainValue(s)
}

func plainValue(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// dnBuilder collects the RDNs of a DN, parsed or as issued, bounding
// what it holds (maxDNContent).
type dnBuilder struct {
	dn      DN
	content int
}

// add appends rdn, its attributes sorted: an RDN is a set.
func (b *dnBuilder) add(rdn []AVA) error {
	for _, a := range rdn {
		if b.content += len(a.Type) + len(a.Value) + 2; b.content > maxDNContent {
			return fmt.Errorf("%w: too long", ErrBadDN)
		}
	}
	slices.SortFunc(rdn, func(a, b AVA) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Value, b.Value))
	})
	b.dn.rdns = append(b.dn.rdns, rdn)
	return nil
}

// splitUnescaped splits s at every sep not escaped by a backslash; with
// semicolon, ';' separates too (RFC 2253 allows it). Escapes are kept for
// parseAVA to resolve.
func splitUnescaped(s string, sep byte, semicolon bool) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++ // skip the escaped byte (a hex pair's second digit is ordinary)
		case s[i] == sep || (semicolon && s[i] == ';'):
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// splitOpenSSL splits OpenSSL's one-line form at unescaped seps, but only
// where the next part starts with an attribute type and '=': the form does
// not escape a '/' or '+' inside a value, so a part without a type
// continues the previous one ("O=A/B" stays one RDN). A blank part is never
// glued, so that parseAVA rejects it. It runs in linear time.
func splitOpenSSL(s string, sep byte) []string {
	parts := splitUnescaped(s, sep, false)
	out := make([]string, 0, len(parts))
	start, end := 0, len(parts[0]) // the current part is s[start:end]
	for _, p := range parts[1:] {
		if startsWithType(p) || trimSpaces(p) == "" || trimSpaces(s[start:end]) == "" {
			out = append(out, s[start:end])
			start = end + 1
		}
		end += 1 + len(p)
	}
	return append(out, s[start:end])
}

func startsWithType(s string) bool {
	eq := strings.IndexByte(s, '=')
	return eq >= 0 && validAttrType(trimSpaces(s[:eq]))
}

func parseAVA(s string, rfc bool) (AVA, error) {
	eq := -1
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			return AVA{}, fmt.Errorf("%w: escape in attribute type", ErrBadDN)
		}
		if s[i] == '=' {
			eq = i
			break
		}
	}
	if eq < 0 {
		return AVA{}, fmt.Errorf("%w: %q has no '='", ErrBadDN, s)
	}
	typ := trimSpaces(s[:eq])
	if !validAttrType(typ) {
		return AVA{}, fmt.Errorf("%w: bad attribute type %q", ErrBadDN, typ)
	}
	typ, known := canonicalType(typ)
	if raw := trimUnescaped(s[eq+1:]); known && strings.HasPrefix(raw, "#") {
		if val, ok := derString(raw[1:]); ok {
			return AVA{Type: typ, Value: val}, nil
		}
	}
	val, err := unescapeValue(s[eq+1:], rfc)
	if err != nil {
		return AVA{}, err
	}
	return AVA{Type: typ, Value: val}, nil
}

// validAttrType accepts RFC 4514's descr (ASCII letter, then letters,
// digits, '-') and numericoid (dot-separated numbers without leading
// zeros). It works on the type as written, before upper-casing, so that no
// non-ASCII letter can upper-case into an ASCII type.
func validAttrType(t string) bool {
	if t == "" {
		return false
	}
	if isDigit(t[0]) {
		for _, arc := range strings.Split(t, ".") {
			if arc == "" || len(arc) > 1 && arc[0] == '0' {
				return false
			}
			for i := 0; i < len(arc); i++ {
				if !isDigit(arc[i]) {
					return false
				}
			}
		}
		return true
	}
	if !isLetter(t[0]) {
		return false
	}
	for i := 1; i < len(t); i++ {
		if c := t[i]; !isLetter(c) && !isDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isHex(c byte) bool    { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func upperASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'a' && s[i] <= 'z' {
			return strings.ToUpper(s) // ASCII-only input: ToUpper maps ASCII only
		}
	}
	return s
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// escapable lists the characters a backslash may precede (besides hex
// pairs): RFC 4514's specials, and '/' for OpenSSL's one-line form.
const escapable = `,+"\<>;= #/`

// unescapeValue resolves escapes and trims unescaped surrounding white
// space. In the RFC form (rfc) an unescaped " < or > is an error.
func unescapeValue(s string, rfc bool) (string, error) {
	s = trimUnescaped(s)
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0:
			return "", fmt.Errorf("%w: NUL in value", ErrBadDN)
		case rfc && (c == '"' || c == '<' || c == '>'):
			return "", fmt.Errorf("%w: unescaped %c in value", ErrBadDN, c)
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("%w: dangling escape", ErrBadDN)
		}
		n := s[i+1]
		if isHex(n) && i+2 < len(s) && isHex(s[i+2]) {
			h := unhex(n)<<4 | unhex(s[i+2])
			if h == 0 {
				return "", fmt.Errorf("%w: NUL in value", ErrBadDN)
			}
			b.WriteByte(h)
			i += 2
			continue
		}
		if strings.IndexByte(escapable, n) < 0 {
			return "", fmt.Errorf("%w: bad escape", ErrBadDN)
		}
		b.WriteByte(n)
		i++
	}
	v := b.String()
	if !utf8.ValidString(v) {
		return "", fmt.Errorf("%w: escapes do not form UTF-8", ErrBadDN)
	}
	return v, nil
}

const spaces = " \t\r\n"

func trimSpaces(s string) string { return strings.Trim(s, spaces) }

// trimUnescaped trims surrounding white space, keeping a trailing space
// that is escaped.
func trimUnescaped(s string) string {
	s = strings.TrimLeft(s, spaces)
	end := len(s)
	for end > 0 && strings.IndexByte(spaces, s[end-1]) >= 0 && !escapedAt(s, end-1) {
		end--
	}
	return s[:end]
}

// escapedAt reports whether s[i] is preceded by an odd number of backslashes.
func escapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// writeValue writes v in RFC 4514 form: a backslash before " + , ; < > \,
// before a leading '#' or space and a trailing space; control characters
// as hex pairs. Everything else, '=' and '/' included, is written as is.
func writeValue(b *strings.Builder, v string) {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case strings.IndexByte(`"+,;<>\`, c) >= 0,
			i == 0 && (c == '#' || c == ' '),
			i == len(v)-1 && c == ' ':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			b.WriteByte('\\')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
}

func writeRDN(b *strings.Builder, rdn []AVA) {
	for i, a := range rdn {
		if i > 0 {
			b.WriteByte('+')
		}
		b.WriteString(a.Type)
		b.WriteByte('=')
		writeValue(b, a.Value)
	}
}

func (d DN) format(reverse bool) string {
	var b strings.Builder
	n := len(d.rdns)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if reverse {
			writeRDN(&b, d.rdns[n-1-i])
		} else {
			writeRDN(&b, d.rdns[i])
		}
	}
	return b.String()
}

// Len returns the number of RDNs.
func (d DN) Len() int { return len(d.rdns) }

// DNEqual reports whether a and b hold the same RDNs in the same or exactly
// reversed order. A subset, a superset, a rotation or any other difference
// is unequal, and the zero DN equals nothing. It does not allocate.
func DNEqual(a, b DN) bool {
	n := len(a.rdns)
	if n == 0 || n != len(b.rdns) {
		return false
	}
	same, rev := true, true
	for i := 0; i < n && (same || rev); i++ {
		same = same && slices.Equal(a.rdns[i], b.rdns[i])
		rev = rev && slices.Equal(a.rdns[i], b.rdns[n-1-i])
	}
	return same || rev
}

// DNKey is the principal key of an ssl caller: the lesser of the canonical
// forms of d written forward and reversed, so that it is the same string
// for a DN and its exact reverse. DNKey(a) == DNKey(b) exactly when
// DNEqual(a, b), for DNs returned by ParseDN.
func DNKey(d DN) string {
	f, r := d.format(false), d.format(true)
	return min(f, r)
}

// String returns the canonical RFC 4514 form, RDNs in the order parsed,
// separated by ',' without spaces, each RDN's attributes sorted. ParseDN of
// it gives back an equal DN.
func (d DN) String() string { return d.format(false) }

// CanonicalDN parses s and returns its principal key, DNKey: two strings
// have the same CanonicalDN exactly when they are DNEqual. The console
// shows it next to a certificate subject.
func CanonicalDN(s string) (string, error) {
	d, err := ParseDN(s)
	if err != nil {
		return "", err
	}
	return DNKey(d), nil
}
