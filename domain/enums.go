package domain

import (
	"fmt"
	"strings"
)

// nameIndex finds s among the names of an enum whose index 0 is the
// invalid zero value, so a match is never 0.
func nameIndex(names []string, s string) (uint8, bool) {
	for i := 1; i < len(names); i++ {
		if names[i] == s {
			return uint8(i), true
		}
	}
	return 0, false
}

// API is one of the five APIs. The zero value is invalid.
type API struct{ i uint8 }

var (
	APIBackoffice = API{1}
	APIPendenze   = API{2}
	APIPagamento  = API{3}
	APIRagioneria = API{4}
	APINodo       = API{5}
)

var apiNames = [...]string{"", "BACKOFFICE", "PENDENZE", "PAGAMENTO", "RAGIONERIA", "NODO"}
var apiVersions = [...]string{"", "v1", "v2", "v2", "v3", "v1"}

// APIs lists every API in a fixed order.
var APIs = []API{APIBackoffice, APIPendenze, APIPagamento, APIRagioneria, APINodo}

// GrantableAPIs lists the APIs an application can be authorized on.
var GrantableAPIs = []API{APIPagamento, APIPendenze, APIRagioneria}

// ParseAPI accepts the upper-case name ("PAGAMENTO") or the path segment
// ("pagamento").
func ParseAPI(s string) (API, error) {
	if i, ok := nameIndex(apiNames[:], strings.ToUpper(s)); ok {
		return API{i}, nil
	}
	return API{}, fmt.Errorf("unknown api %q", s)
}

func (a API) String() string { return apiNames[a.i] }

// Segment is the API's path segment ("pagamento").
func (a API) Segment() string { return strings.ToLower(apiNames[a.i]) }

// Version is the API's mounted version ("v2").
func (a API) Version() string { return apiVersions[a.i] }

// Grantable reports whether applications are authorized on a per grant.
func (a API) Grantable() bool { return a == APIPagamento || a == APIPendenze || a == APIRagioneria }

// AuthType is how a caller authenticates. The zero value is invalid.
type AuthType struct{ i uint8 }

var (
	AuthBasic  = AuthType{1}
	AuthSSL    = AuthType{2}
	AuthSPID   = AuthType{3}
	AuthPublic = AuthType{4}
	// AuthAPIKey is GovPay's API key: headers X-APP-ID (the application's
	// idA2A or the operator's principal) and X-API-KEY.
	AuthAPIKey = AuthType{5}
)

var authNames = [...]string{"", "basic", "ssl", "spid", "public", "apikey"}

// AuthTypes lists every authentication type.
var AuthTypes = []AuthType{AuthBasic, AuthSSL, AuthSPID, AuthPublic, AuthAPIKey}

// ParseAuthType accepts "basic", "ssl", "spid", "public" or "apikey".
func ParseAuthType(s string) (AuthType, error) {
	if i, ok := nameIndex(authNames[:], s); ok {
		return AuthType{i}, nil
	}
	return AuthType{}, fmt.Errorf("unknown auth type %q: want %s", s, AuthTypeList())
}

// AuthTypeList names every authentication type, for help and errors:
// "basic, ssl, spid, public or apikey".
func AuthTypeList() string {
	n := authNames[1:]
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

func (a AuthType) String() string { return authNames[a.i] }

// Service is one of the nine Backoffice services. The zero value is invalid.
type Service struct{ i uint8 }

var (
	ServiceAnagraficaPagoPA           = Service{1}
	ServiceAnagraficaCreditore        = Service{2}
	ServiceAnagraficaApplicazioni     = Service{3}
	ServiceAnagraficaRuoli            = Service{4}
	ServicePagamenti                  = Service{5}
	ServicePendenze                   = Service{6}
	ServiceRendicontazioniIncassi     = Service{7}
	ServiceGiornaleEventi             = Service{8}
	ServiceConfigurazioneManutenzione = Service{9}
)

const numServices = 10 // index 0 unused

var serviceNames = [numServices]string{"",
	"Anagrafica PagoPA", "Anagrafica Creditore", "Anagrafica Applicazioni", "Anagrafica Ruoli",
	"Pagamenti", "Pendenze", "Rendicontazioni e Incassi", "Giornale degli Eventi",
	"Configurazione e manutenzione"}

// Services lists the nine services in GovPay's order.
var Services = []Service{ServiceAnagraficaPagoPA, ServiceAnagraficaCreditore, ServiceAnagraficaApplicazioni,
	ServiceAnagraficaRuoli, ServicePagamenti, ServicePendenze, ServiceRendicontazioniIncassi,
	ServiceGiornaleEventi, ServiceConfigurazioneManutenzione}

// ParseService accepts GovPay's label, exactly.
func ParseService(s string) (Service, error) {
	if i, ok := nameIndex(serviceNames[:], s); ok {
		return Service{i}, nil
	}
	return Service{}, fmt.Errorf("unknown servizio %q", s)
}

func (s Service) String() string { return serviceNames[s.i] }

// Registry is one of the Backoffice's unscoped registries, with the
// service whose rights govern it (API.md section 4): every read, list and
// write of the registry needs that service's R or W, and takes it from
// here. The zero value is invalid. (Domini and tipiPendenza are scoped and
// decided by place, not by a Registry.)
type Registry struct {
	name    string
	service Service
}

var (
	RegistryIntermediari = Registry{"intermediari", ServiceAnagraficaPagoPA}
	RegistryRuoli        = Registry{"ruoli", ServiceAnagraficaRuoli}
	RegistryOperatori    = Registry{"operatori", ServiceAnagraficaRuoli}
	RegistryApplicazioni = Registry{"applicazioni", ServiceAnagraficaApplicazioni}
)

// Service is the service whose rights govern the registry.
func (r Registry) Service() Service { return r.service }

func (r Registry) String() string { return r.name }

// Right is R (read, GETs) or W (write). Rights is a set of them.
type Right uint8

const (
	RightRead  Right = 1 << iota // "R"
	RightWrite                   // "W"
)

// ParseRight accepts "R" or "W".
func ParseRight(s string) (Right, error) {
	switch s {
	case "R":
		return RightRead, nil
	case "W":
		return RightWrite, nil
	}
	return 0, fmt.Errorf("unknown autorizzazione %q", s)
}

func (r Right) String() string {
	switch r {
	case RightRead:
		return "R"
	case RightWrite:
		return "W"
	}
	return "?"
}

// Rights is a set of rights on one service.
type Rights uint8

// Has reports whether r includes right.
func (r Rights) Has(right Right) bool { return r&Rights(right) != 0 }

// List returns the rights in wire form, R before W.
func (r Rights) List() []string {
	out := make([]string, 0, 2)
	if r.Has(RightRead) {
		out = append(out, "R")
	}
	if r.Has(RightWrite) {
		out = append(out, "W")
	}
	return out
}
