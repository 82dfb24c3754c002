package commands

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"

	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
)

// PutEntity registers or updates a creditor entity (PUT /domini/{idDominio}).
type PutEntity struct {
	IDDominio       string
	RagioneSociale  string
	IDIntermediario string
	Enabled         bool
	Fields          events.EntityFields // GovPay's fields that bear on no decision
	// KeepFields keeps the stored Fields instead (a form that does not
	// show them, as the console's: saving it must not erase them).
	KeepFields bool
	// Base is the position of the entity's state the command was computed
	// from (a console form), 0 for none: see based.
	Base events.Position
}

// PutEntity needs Anagrafica Creditore W with idDominio in scope, and the
// intermediary it names registered (operations.WriteEntity).
func (h *Handler) PutEntity(ctx context.Context, actor Actor, c PutEntity) (Result, error) {
	if err := firstError(
		CheckDominio("idDominio", c.IDDominio),
		checkName("ragioneSociale", c.RagioneSociale),
		checkEntityFields(&c.Fields),
	); err != nil {
		return Result{}, err
	}
	// GovPay names the intermediary through its station, idIntermediario_NN.
	if st, _, ok := strings.Cut(c.Fields.Stazione, "_"); ok {
		if c.IDIntermediario == "" {
			c.IDIntermediario = st
		} else if c.IDIntermediario != st {
			return Result{}, invalid("stazione", "belongs to intermediary %s, not to idIntermediario %s", st, c.IDIntermediario)
		}
	}
	if c.IDIntermediario != "" {
		if err := checkID("idIntermediario", c.IDIntermediario); err != nil {
			return Result{}, err
		}
	}
	if err := operations.WriteEntity(h.model, actor.Principal, c.IDDominio, c.IDIntermediario, nil); err != nil {
		return Result{}, err
	}
	return h.execute(ctx, actor, events.StreamDominio+c.IDDominio, based(c.Base, func(stream []events.Envelope) ([]events.Event, error) {
		e := events.CreditorEntityRegistered{IDDominio: c.IDDominio, RagioneSociale: c.RagioneSociale,
			IDIntermediario: c.IDIntermediario, Enabled: c.Enabled, EntityFields: c.Fields}
		cur := latest(stream, func(e events.CreditorEntityUpdated) events.CreditorEntityRegistered {
			return events.CreditorEntityRegistered(e)
		})
		if cur == nil {
			return []events.Event{e}, nil
		}
		if c.KeepFields {
			e.EntityFields = cur.EntityFields
		}
		keepConnectors(entityConnectors(&e.EntityFields), entityConnectors(&cur.EntityFields))
		if reflect.DeepEqual(*cur, e) {
			return nil, nil
		}
		return []events.Event{events.CreditorEntityUpdated(e)}, nil
	}))
}

// jsonField is one of GovPay's free JSON values of a request: its field
// name and its value, kept as given (a connector, a JSON object that may
// carry credentials, is one: secret in the log and never returned).
type jsonField struct {
	name string
	raw  *json.RawMessage
}

// absent reports whether f holds no value, a JSON null being none (as
// GovPay reads it): null is then dropped, so the log keeps no null and a
// repeat that leaves the member out is the same write.
func (f jsonField) absent() bool {
	if string(*f.raw) == "null" {
		*f.raw = nil
	}
	return len(*f.raw) == 0
}

func entityConnectors(f *events.EntityFields) []jsonField {
	return []jsonField{{"servizioMyPivot", &f.ServizioMyPivot}, {"servizioSecim", &f.ServizioSecim}, {"servizioGovPay", &f.ServizioGovPay}}
}

// keepConnectors keeps each stored connector a PUT leaves out: they are
// never returned, so a client cannot send them back. to and stored list
// the same fields.
func keepConnectors(to, stored []jsonField) {
	for i, c := range to {
		if *c.raw == nil {
			*c.raw = *stored[i].raw
		}
	}
}

// checkConnectors validates connectors as JSON objects of at most 8 KiB;
// a JSON null is an absent one (jsonField.absent). Each is then written as the log keeps it
// (storedJSON).
func checkConnectors(cs []jsonField) error {
	for _, c := range cs {
		switch {
		case c.absent():
		case len(*c.raw) > 8<<10:
			return invalid(c.name, "at most 8 KiB")
		case (*c.raw)[0] != '{':
			return invalid(c.name, "must be an object")
		}
		if err := storedJSON(c); err != nil {
			return err
		}
	}
	return nil
}

var (
	reGLN       = regexp.MustCompile(`^[0-9]{13}$`)
	reCBILL     = regexp.MustCompile(`^[A-Za-z0-9]{1,5}$`)
	reStazione  = regexp.MustCompile(`^[0-9]{11}_[0-9]{2}$`)
	reAuxDigit  = regexp.MustCompile(`^[0-3]$`)
	reSegregato = regexp.MustCompile(`^[0-9]{2}$`)
	reIUVPrefix = regexp.MustCompile(`^([0-9]|%\([yYatp]\))*$`)
)

// MaxLogoBytes bounds a creditor entity's logo (base64), which every
// replica keeps in memory with the entity.
const MaxLogoBytes = 64 << 10

// checkContacts bounds an entity's or unit's address and contacts.
func checkContacts(c events.Contacts) error {
	for _, f := range []struct{ name, v string }{{"indirizzo", c.Indirizzo}, {"civico", c.Civico}, {"cap", c.CAP},
		{"localita", c.Localita}, {"provincia", c.Provincia}, {"nazione", c.Nazione}, {"email", c.Email}, {"pec", c.PEC},
		{"tel", c.Tel}, {"fax", c.Fax}, {"web", c.Web}, {"area", c.Area}} {
		if longerThan(f.v, MaxNameLength) {
			return invalid(f.name, "at most %d characters", MaxNameLength)
		}
	}
	return nil
}

// checkEntityFields validates GovPay's fields of a creditor entity as
// GovPay's schema describes them; a JSON null connector is an absent one.
func checkEntityFields(f *events.EntityFields) error {
	if err := checkContacts(f.Contacts); err != nil {
		return err
	}
	if longerThan(f.AutStampaPosteItaliane, MaxNameLength) {
		return invalid("autStampaPosteItaliane", "at most %d characters", MaxNameLength)
	}
	for _, c := range []struct {
		name, v string
		re      *regexp.Regexp
		what    string
	}{{"gln", f.GLN, reGLN, "13 digits"}, {"cbill", f.CBILL, reCBILL, "1 to 5 letters or digits"},
		{"stazione", f.Stazione, reStazione, "idIntermediario_NN"}, {"auxDigit", f.AuxDigit, reAuxDigit, "0, 1, 2 or 3"},
		{"segregationCode", f.SegregationCode, reSegregato, "2 digits"}, {"iuvPrefix", f.IUVPrefix, reIUVPrefix, "digits and %(y) %(Y) %(a) %(t) %(p)"}} {
		if c.v != "" && !c.re.MatchString(c.v) {
			return invalid(c.name, "must be %s", c.what)
		}
	}
	if len(f.IUVPrefix) > 35 {
		return invalid("iuvPrefix", "at most 35 characters")
	}
	if f.Logo != "" {
		if len(f.Logo) > MaxLogoBytes {
			return invalid("logo", "at most %d bytes of base64", MaxLogoBytes)
		}
		if _, err := base64.StdEncoding.DecodeString(f.Logo); err != nil {
			return invalid("logo", "must be base64")
		}
	}
	return checkConnectors(entityConnectors(f))
}

// PutUnit registers or updates an operational unit of a creditor entity
// (PUT /domini/{idDominio}/unitaOperative/{idUnita}).
type PutUnit struct {
	IDDominio      string
	IDUnita        string
	RagioneSociale string
	Enabled        bool
	Contacts       events.Contacts
}

// PutUnit needs Anagrafica Creditore W with idDominio in scope; the entity
// must be registered (422).
func (h *Handler) PutUnit(ctx context.Context, actor Actor, c PutUnit) (Result, error) {
	if err := firstError(
		CheckDominio("idDominio", c.IDDominio),
		checkID("idUnita", c.IDUnita),
		checkName("ragioneSociale", c.RagioneSociale),
		checkContacts(c.Contacts),
	); err != nil {
		return Result{}, err
	}
	if err := operations.WriteUnit(h.model, actor.Principal, c.IDDominio, nil); err != nil {
		return Result{}, err
	}
	e := events.UnitRegistered{IDDominio: c.IDDominio, IDUnita: c.IDUnita, RagioneSociale: c.RagioneSociale,
		Enabled: c.Enabled, Contacts: c.Contacts}
	return h.execute(ctx, actor, events.StreamUnita+c.IDDominio+"/"+c.IDUnita, func(stream []events.Envelope) ([]events.Event, error) {
		cur := latest(stream, func(e events.UnitUpdated) events.UnitRegistered { return events.UnitRegistered(e) })
		switch {
		case cur == nil:
			return []events.Event{e}, nil
		case *cur == e:
			return nil, nil
		}
		return []events.Event{events.UnitUpdated(e)}, nil
	})
}
