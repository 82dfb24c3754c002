package console

import (
	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/projections"
)

// The Domini page: the creditor entities in the operator's scope.

type dominioForm struct {
	New             bool
	IDDominio       string
	RagioneSociale  string
	IDIntermediario string
	Enabled         bool
	formState
}

// mayWrite: PUT /domini/{idDominio} (operations.WriteEntity) as the
// entity's page decides it, before the body: the intermediary the save
// names is decided when it is sent (a typo there is the save's 422, not a
// read-only form).
func (f *dominioForm) mayWrite(p domain.Principal, m *projections.ReadModel) error {
	return mayWriteScoped(p, f.New, func() error { return operations.WriteEntity(m, p, f.IDDominio, "", nil) })
}

func (f *dominioForm) title() string {
	if f.New {
		return "Nuovo dominio"
	}
	return "Dominio " + f.IDDominio
}

func (c *Console) domini() dominiOps { return c.ops }

func (c *Console) listDomini(rq *request) error {
	return registryList(c, rq, &dominioForm{New: true}, "Domini",
		&table{Caption: "Enti creditori nel tuo ambito", Empty: "Nessun dominio.",
			Headers: []string{"idDominio", "Ragione sociale", "Intermediario", "Abilitato"}},
		link{Href: "/console/domini?nuovo", Label: "Registra un nuovo dominio"},
		func() ([]events.CreditorEntityRegistered, error) { return c.domini().ListDomini(rq.p) },
		func(e events.CreditorEntityRegistered) []cell {
			return []cell{recordLink("/console/domini/", e.IDDominio), {Text: e.RagioneSociale, Class: "ragione"},
				{Text: e.IDIntermediario}, yesNo(e.Enabled)}
		})
}

func (c *Console) newDominio(rq *request) error {
	return c.registryNew(rq, "dominio.html", &dominioForm{New: true, Enabled: true})
}

func (c *Console) openDominio(rq *request, id string) opener {
	return func() (writeForm, error) {
		e, err := c.domini().GetDominio(rq.p, id)
		if err != nil {
			return nil, err
		}
		return &dominioForm{IDDominio: e.IDDominio,
			RagioneSociale: e.RagioneSociale, IDIntermediario: e.IDIntermediario, Enabled: e.Enabled}, nil
	}
}

func (c *Console) editDominio(rq *request) error {
	return c.showForm(rq, "dominio.html", c.openDominio(rq, rq.r.PathValue("id")))
}

func (c *Console) saveDominio(rq *request) error {
	pf := rq.r.PostForm
	f := &dominioForm{New: pf.Get("nuovo") == "1", IDDominio: pf.Get("idDominio"), RagioneSociale: pf.Get("ragioneSociale"),
		IDIntermediario: pf.Get("idIntermediario"), Enabled: pf.Get("abilitato") == "on", formState: formState{Base: postedBase(rq.r)}}
	read := func() error { _, err := c.domini().GetDominio(rq.p, f.IDDominio); return err }
	res, err := c.save(rq, f.Base, f.New, "idDominio", read, func() (commands.Result, error) {
		// The form edits what it shows; GovPay's other fields stay as stored.
		return c.domini().PutDominio(rq.r.Context(), rq.actor(), commands.PutEntity{IDDominio: f.IDDominio,
			RagioneSociale: f.RagioneSociale, IDIntermediario: f.IDIntermediario, Enabled: f.Enabled, KeepFields: true, Base: f.Base})
	})
	return c.saved(rq, res, err, "/console/domini", "dominio.html", f, c.openDominio(rq, f.IDDominio))
}
