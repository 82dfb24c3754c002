package console

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// The Incassi page: the Backoffice's incassi (GovPay's riaccrediti), their
// list and detail as GET /incassi reads them, and the form that records
// one with the command of POST /incassi/{idDominio}, decided as that POST
// is: its gate (operations.AskWriteIncasso) on the entity before the rest
// of the form is looked at, then the command (its checks, then
// operations.WriteIncasso).

type incassiOps interface {
	RecordIncasso(ctx context.Context, a commands.Actor, in commands.RecordIncasso) (commands.Result, string, error)
	GetIncasso(p domain.Principal, idDominio, idIncasso string) (*projections.Incasso, error)
}

var _ incassiOps = backoffice{}

// RecordIncasso: POST /incassi/{idDominio}.
func (b backoffice) RecordIncasso(ctx context.Context, a commands.Actor, in commands.RecordIncasso) (commands.Result, string, error) {
	return b.cmds.RecordIncasso(ctx, a, in)
}

// GetIncasso: GET /incassi/{idDominio}/{idIncasso} (Rendicontazioni e
// Incassi R on idDominio, 403 before 404).
func (b backoffice) GetIncasso(p domain.Principal, idDominio, idIncasso string) (*projections.Incasso, error) {
	return operations.ReadIncasso(b.model, p, idDominio, idIncasso, nil)
}

func (c *Console) incassi() incassiOps { return c.ops }

// incassoForm is the form of a new incasso: what was typed, and the
// entities it is offered on.
type incassoForm struct {
	IDDominio, Causale, Importo  string
	IDFlusso, DataValuta         string
	DataContabile, IBANAccredito string
	SCT                          string
	Entities                     []option
	formState
}

// mayWrite: the part of POST /incassi/{idDominio}'s gate that needs no
// entity, Rendicontazioni e Incassi W (its save decides the entity).
func (f *incassoForm) mayWrite(p domain.Principal, _ *projections.ReadModel) error {
	return operations.UseService(p, domain.ServiceRendicontazioniIncassi, domain.RightWrite, nil)
}

func (f *incassoForm) title() string { return "Nuovo incasso" }

// incassoEntities are the entities the form offers p: those the POST's
// gate lets p record an incasso on.
func (c *Console) incassoEntities(p domain.Principal) []option {
	return c.entityOptions(nil, func(id string) bool { return operations.AskWriteIncasso(p, id, nil) == nil })
}

func (c *Console) listIncassi(rq *request) error {
	t := &table{Caption: "Incassi", Action: "/console/incassi",
		Headers: []string{"Dominio", "Incasso", "Causale", "Importo", "Flusso", "Registrato il"}}
	if (&incassoForm{}).mayWrite(rq.p, c.deps.Model) == nil {
		t.New = &link{Href: "/console/incassi?nuovo", Label: "Registra un nuovo incasso"}
	}
	return rendicontazioniList(c, rq, "Incassi", t,
		func(scope operations.EntityScope) []*projections.Incasso {
			return c.deps.Model.Incassi(func(r *projections.Incasso) bool { return scope.Admits(r.Event.IDDominio) })
		},
		func(r *projections.Incasso) []cell {
			e := r.Event
			return []cell{{Text: e.IDDominio}, {Text: e.IDIncasso, Href: detailHref("incassi", e.IDDominio, e.IDIncasso)},
				{Text: e.Causale}, {Text: euro(e.AmountCents)}, {Text: e.IDFlusso}, {Text: ora(r.Time)}}
		})
}

func (c *Console) newIncasso(rq *request) error {
	f := &incassoForm{}
	if err := f.mayWrite(rq.p, c.deps.Model); err != nil {
		return err
	}
	f.Entities = c.incassoEntities(rq.p)
	return c.renderForm(rq, http.StatusOK, "incasso.html", f)
}

// saveIncasso records the form's incasso as POST /incassi/{idDominio}
// does: the entity's format and the gate first (a 403 whatever the rest
// of the form holds), then the amount as the API reads importo
// (Deps.Importo; a comma is read as the decimal point), then the command.
// After the write it shows the incasso.
func (c *Console) saveIncasso(rq *request) error {
	pf := rq.r.PostForm
	f := &incassoForm{IDDominio: pf.Get("idDominio"), Causale: pf.Get("causale"), Importo: pf.Get("importo"),
		IDFlusso: pf.Get("idFlusso"), DataValuta: pf.Get("dataValuta"), DataContabile: pf.Get("dataContabile"),
		IBANAccredito: pf.Get("ibanAccredito"), SCT: pf.Get("sct"), Entities: c.incassoEntities(rq.p),
		formState: formState{Errors: fieldErrors{}}}
	again := func() (writeForm, error) { return f, nil } // the form as typed: a new incasso is never stale
	err := commands.CheckDominio("idDominio", f.IDDominio)
	if err == nil {
		err = operations.AskWriteIncasso(rq.p, f.IDDominio, nil)
	}
	if err != nil {
		return c.saved(rq, commands.Result{}, err, "", "incasso.html", f, again)
	}
	cents, err := c.deps.Importo(strings.Replace(strings.TrimSpace(f.Importo), ",", ".", 1))
	if err != nil {
		f.Errors["importo"] = "L'importo è un numero di euro con al più due decimali (ad esempio 123,45)."
		return c.renderForm(rq, http.StatusBadRequest, "incasso.html", f)
	}
	res, id, err := c.incassi().RecordIncasso(rq.r.Context(), rq.actor(), commands.RecordIncasso{IDDominio: f.IDDominio,
		Causale: f.Causale, AmountCents: cents, IDFlusso: f.IDFlusso, DataValuta: f.DataValuta,
		DataContabile: f.DataContabile, IBANAccredito: f.IBANAccredito, SCT: f.SCT})
	return c.saved(rq, res, err, detailHref("incassi", f.IDDominio, id), "incasso.html", f, again)
}

func (c *Console) getIncasso(rq *request) error {
	r, err := c.incassi().GetIncasso(rq.p, rq.r.PathValue("idDominio"), rq.r.PathValue("idIncasso"))
	if err != nil {
		return err
	}
	e := r.Event
	return c.render(rq, http.StatusOK, "tabella.html", "Incasso", fields("Incasso "+e.IDIncasso,
		"Dominio", e.IDDominio, "Incasso", e.IDIncasso, "Causale", e.Causale, "Importo", euro(e.AmountCents),
		"Flusso", e.IDFlusso, "Data valuta", e.DataValuta, "Data contabile", e.DataContabile,
		"IBAN di accredito", e.IBANAccredito, "Riferimento SCT", e.SCT,
		"Registrato il", ora(r.Time),
		"Posizione nel giornale", strconv.FormatUint(uint64(r.Position), 10)))
}
