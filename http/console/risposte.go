package console

import (
	"fmt"
	"slices"
	"strings"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations/audit"
)

// The console's words for the answers of its Audit page, as messaggi.go
// words its errors: each text of an answer (the decision's detail, a
// step's, a role's or grant's reason) is worded from the code and the
// values the answer carries beside it (audit's Note* codes), a check's
// error by the code of its denial or of its unprocessable request, in the
// words the console's own errors use; a text it has no words for (a code
// it does not know, a denial without a code) keeps the API's English.

// risposte words a text of an answer by its code: "" when it cannot.
var risposte = map[string]parola{
	audit.NoteCheck:        func(args []any) string { return motivo(asError(arg0(args, 0))) },
	audit.NoteAskedMissing: testo("può chiedere; la risorsa non esiste a questa posizione"),
	audit.NoteMissing:      testo("la risorsa non esiste a questa posizione"),
	audit.NoteUnprocessable: func(args []any) string {
		return conMotivo("consentita, ma la richiesta non è processabile (422): %s", args)
	},
	audit.NotePublic:        testo("chiamante pubblico: anonimo"),
	audit.NoteSPIDRefused:   testo("non è un codice fiscale: il proxy d'identità non ammette il chiamante (401)"),
	audit.NoteNotFiscalCode: testo("non è un codice fiscale"),
	audit.NoteSPIDCitizen:   testo("chiamante spid non registrato su PAGAMENTO: un cittadino"),
	audit.NoteNoSuchName:    testo("nessun principal registrato ha questo nome a questa posizione"),
	audit.NoteNotRegistered: testo("non registrato a questa posizione"),
	audit.NoteNoPassword:    testo("registrato senza password: l'autenticazione basic non può riuscire (401)"),
	audit.NoteNoAPIKey:      testo("registrato senza chiave API: l'autenticazione apikey non può riuscire (401)"),
	audit.NoteRegistered:    registrato,
	audit.NoteNotReached:    testo("l'operazione non è stata raggiunta: il chiamante non è entrato nell'API %s"),
	audit.NoteNoRightAsked:  testo("l'operazione non chiede a un ruolo alcun diritto su un servizio"),
	audit.NoteNoRightOther:  testo("l'operazione non chiede a un ruolo alcun diritto su un servizio; ha deciso un'altra regola"),
	audit.NoteGrantCovers: testo("autorizzata sull'API %s; le decisioni dell'operazione trovano la risorsa " +
		"nell'ambito di questa autorizzazione"),
	audit.NoteGrantNotScope: testo("autorizzata sull'API %s; le decisioni dell'operazione non si fondano sull'ambito di " +
		"questa autorizzazione (decidono per proprietà o per il solo chiamante; le righe che un elenco poi mostra " +
		"possono esserne comunque limitate)"),
	audit.NoteGrantMissing: testo("autorizzata sull'API %s; le decisioni dell'operazione consentono al chiamante " +
		"di chiedere, e la risorsa non esiste"),
	audit.NoteGrantUndecided: func(args []any) string {
		return conMotivo("non decisa: l'operazione è terminata prima di decidere sull'ambito di questa autorizzazione (%s)", args)
	},
	audit.NoteRoleLacks:     diritto("non dà %s"),
	audit.NoteRoleUnreached: diritto("dà %s ma il dominio %s non è nel suo ambito, né per intero né in un'unità operativa"),
	audit.NoteRoleCovers: func(args []any) string {
		held, _ := arg0(args, 2).([]domain.Place)
		return "dà " + dirittoSu(arg0(args, 0), arg0(args, 1)) + luoghiTenuti(held)
	},
	audit.NoteRoleOutside: func(args []any) string {
		held, _ := arg0(args, 2).([]domain.Place)
		missing, _ := arg0(args, 3).(domain.Place)
		where, plural := luogo(missing)
		is := "non è"
		if plural {
			is = "non sono"
		}
		return "dà " + dirittoSu(arg0(args, 0), arg0(args, 1)) + luoghiTenuti(held) + " ma " + where + " " + is + " nel suo ambito"
	},
}

// italiano is a text of an answer in the console's words: english, the
// API's text, when it has none. Its closing full stop is the page's.
func italiano(code string, args []any, english string) string {
	if w, ok := risposte[code]; ok {
		if s := w(args); s != "" {
			return strings.TrimSuffix(s, ".")
		}
	}
	return english
}

// motivo words a check's error as the console words its own (coded),
// without its closing full stop: "" when coded has no words for it.
func motivo(err error) string {
	w, _ := coded(err)
	return strings.TrimSuffix(w, ".")
}

// conMotivo is format naming the words of the error at args[0]: "" when
// the error has none.
func conMotivo(format string, args []any) string {
	m := motivo(asError(arg0(args, 0)))
	if m == "" {
		return ""
	}
	return fmt.Sprintf(format, m)
}

// registrato words audit.NoteRegistered: the principal's kind, whether it
// is enabled, the position of its last event.
func registrato(args []any) string {
	kind, _ := arg0(args, 0).(domain.PrincipalKind)
	enabled, _ := arg0(args, 1).(bool)
	name, o := "utenza", "a" // the noun, and the ending that agrees with it
	switch kind {
	case domain.KindOperator:
		name, o = "operatore", "o"
	case domain.KindApplication:
		name = "applicazione"
	}
	state := "abilitat" + o
	if !enabled {
		state = "disabilitat" + o
	}
	return fmt.Sprintf("%s registrat%s (%s), definit%s dall'evento alla posizione %v; le credenziali si assumono valide",
		name, o, state, o, arg0(args, 2))
}

// tipiPrincipal are the kinds of principal, as an answer names them
// (domain.PrincipalKind's String), in the console's words.
var tipiPrincipal = map[string]string{
	domain.KindOperator.String():    "operatore",
	domain.KindApplication.String(): "applicazione",
	domain.KindCitizen.String():     "cittadino",
	domain.KindAnonymous.String():   "anonimo",
}

// tipoPrincipal is the kind of principal an answer names, in the
// console's words: as the answer names it when it has none.
func tipoPrincipal(kind string) string {
	if s, ok := tipiPrincipal[kind]; ok {
		return s
	}
	return kind
}

// luogo names a place a role's reason names, and whether it names two
// things (an entity and a type).
func luogo(pl domain.Place) (string, bool) {
	tipo := "il tipo pendenza " + pl.IDTipoPendenza
	if pl.IDTipoPendenza == domain.Wildcard {
		tipo = "ogni tipo pendenza"
	}
	var dominio string
	switch {
	case pl.IDDominio == "":
		return tipo, false
	case pl.IDDominio == domain.Wildcard:
		dominio = "ogni dominio"
	case pl.IDUnita != "":
		dominio = "l'unità operativa " + pl.IDUnita + " del dominio " + pl.IDDominio
	default:
		dominio = "il dominio " + pl.IDDominio
	}
	if pl.IDTipoPendenza == "" {
		return dominio, false
	}
	return dominio + " e " + tipo, true
}

// luoghiTenuti says which places a role holds: "" for none.
func luoghiTenuti(places []domain.Place) string {
	var names []string
	for _, pl := range places {
		if n, _ := luogo(pl); !slices.Contains(names, n) { // a payment's items may share a place
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " con " + strings.Join(names, ", ") + " nel suo ambito"
}
