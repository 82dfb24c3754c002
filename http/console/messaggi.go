package console

import (
	"errors"
	"fmt"
	"strings"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/operations"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/projections"
)

// The console's words for the errors of the commands and operations its
// forms run, and of the questions its Audit page asks, in one place: each
// typed error is worded from its code (the Invalid*, Unprocessable* and
// Deny* codes, a denial without one from its Rule; a point of history the
// log does not hold by projections' Point* codes, a question the catalogue
// cannot decide by audit's Query* codes or the field it left empty) and
// the values it carries, never from its English Detail, which stays the
// API's (the FaultBean's dettaglio). A field error names its field as the
// API does.

// parola is one message: its Italian from the error's Args.
type parola func(args []any) string

// testo is a message that names its Args in order, as fmt does.
func testo(format string) parola {
	return func(args []any) string { return fmt.Sprintf(format, args...) }
}

// invalidi words an InvalidError; its Args follow the field's name.
var invalidi = map[string]parola{
	commands.InvalidDominio:       testo("%s: deve essere di 11 cifre (il codice fiscale dell'ente)."),
	commands.InvalidID:            testo("%s: da 1 a 35 caratteri tra lettere, cifre, «_», «.» e «-», e non «.» né «..»."),
	commands.InvalidPasswordShort: testo("%s: almeno %d caratteri."),
	commands.InvalidPasswordLong:  testo("%s: al più %d byte."),
	commands.InvalidRequiredChars: testo("%s: obbligatorio, al più %d caratteri."),
	commands.InvalidRequiredBytes: testo("%s: obbligatorio, al più %d byte."),
	commands.InvalidRequired:      testo("%s: obbligatorio."),
	commands.InvalidUTF8:          testo("%s: contiene byte che non sono testo UTF-8."),
	commands.InvalidControl:       testo("%s: non può contenere caratteri di controllo."),
	commands.InvalidTooLong:       testo("%s: al più %d caratteri."),
	commands.InvalidLength:        testo("%s: da %d a %d caratteri."),
	commands.InvalidListLength:    testo("%s: al più %d voci."),
	commands.InvalidWildcard:      testo("%s: «*» (tutti) va scelto da solo."),
	commands.InvalidBadID:         testo("%s: %q non è un identificativo valido."),
	commands.InvalidTwice:         testo("%s: %s è indicato due volte."),
	commands.InvalidRange:         testo("%s: deve essere tra %v e %v."),
	commands.InvalidURL:           testo("%s: deve essere un URL assoluto http o https."),
	commands.InvalidPasswordColon: testo("%s: non può contenere «:» se l'utenza ha una password: nell'accesso HTTP basic il nome utente finisce ai due punti, " +
		"e la password non si potrebbe mai usare (autenticala con un certificato o una chiave API, o scegli un nome senza «:»)."),
	commands.InvalidSecret: testo("%s: la chiave segreta è obbligatoria per attivare la protezione, " +
		"e di nuovo quando cambia l'URL del server."),
	commands.InvalidDate:   testo("%s: deve essere una data (AAAA-MM-GG) o una data e ora RFC 3339."),
	commands.InvalidFlusso: testo("%s: non è l'identificativo di un flusso di rendicontazione (da 1 a 70 tra lettere, cifre, «_», «.» e «-»)."),
	commands.InvalidStato: func(args []any) string {
		return fmt.Sprintf("%s: può essere solo %s (annulla) o %s (riapri).", args[0], domain.StatoAnnullata, domain.StatoNonEseguita)
	},
}

// nonProcessabili words an UnprocessableError.
var nonProcessabili = map[string]parola{
	operations.UnprocessableEntityUnknown:       testo("Il dominio %s non è registrato."),
	operations.UnprocessableEntityDisabled:      testo("Il dominio %s è disabilitato."),
	operations.UnprocessableUnitUnknown:         testo("L'unità operativa %s non è registrata presso il dominio %s."),
	operations.UnprocessableUnitDisabled:        testo("L'unità operativa %s del dominio %s è disabilitata."),
	operations.UnprocessableTypeUnknown:         testo("Il tipo pendenza %s non è registrato."),
	operations.UnprocessableTypeDisabled:        testo("Il tipo pendenza %s è disabilitato."),
	operations.UnprocessableIntermediaryUnknown: testo("L'intermediario %s non è registrato."),
	operations.UnprocessableRoleUndefined:       testo("Il ruolo %s non è definito."),
	operations.UnprocessableAmount:              testo("L'importo deve essere maggiore di zero."),
	operations.UnprocessableStato: func(args []any) string {
		if len(args) > 3 && errors.Is(asError(args[3]), domain.ErrPendenzaPaid) {
			return fmt.Sprintf("La pendenza %s/%s è pagata: il suo stato non si può più cambiare.", args[0], args[1])
		}
		return fmt.Sprintf("Lo stato della pendenza %s/%s non consente questa modifica.", args[0], args[1])
	},
	operations.UnprocessableStatoChange: testo("La pendenza non può prendere questo stato."),
	operations.UnprocessablePassword:    testo("L'operatore %s non accede con una password: non ha una password da cambiare."),
}

// dinieghi words a ForbiddenError by its code: every denial domain makes
// has one (TestEveryDenialIsWorded). The words describe the principal
// denied without addressing it ("l'utenza", "il chiamante"), as regole's
// do, so that they read right both as the console user's own error and on
// the Audit page, about the principal audited.
var dinieghi = map[string]parola{
	domain.DenyNoRole:        diritto("Nessun ruolo dell'utenza dà %s."),
	domain.DenyPendenzaScope: diritto("Nessun ruolo dell'utenza che dà %s copre il dominio e il tipo di questa pendenza."),
	domain.DenyPaymentScope:  diritto("Nessun ruolo dell'utenza che dà %s copre ogni pendenza di questo pagamento."),
	domain.DenyGranter:       diritto("Non si può concedere più di quanto si possiede: l'utenza non ha %s."),
	domain.DenyMissingScope:  diritto("Nessun ruolo dell'utenza che dà %s copre tutti i domini e tutti i tipi."),
	domain.DenyEventScope:    diritto("Nessun ruolo dell'utenza che dà %s copre il dominio, l'unità e il tipo di questo evento."),
	domain.DenyDominioScope:  diritto("Nessun ruolo dell'utenza che dà %s ha il dominio %s nel suo ambito."),
	domain.DenyTipoScope:     diritto("Nessun ruolo dell'utenza che dà %s ha il tipo pendenza %s nel suo ambito."),
	domain.DenyGranterPlace: func(args []any) string {
		d, u, t := arg(args, 2), arg(args, 3), arg(args, 4)
		held := "alcun ruolo"
		if s, _ := args[0].(domain.Service); s != (domain.Service{}) {
			held = dirittoSu(args[0], args[1])
		}
		var where []string
		switch {
		case u != "":
			where = append(where, "sull'unità operativa "+u+" del dominio "+d)
		case d != "":
			where = append(where, "sul dominio "+d)
		}
		if t != "" {
			where = append(where, "sul tipo pendenza "+t)
		}
		return "Non si può concedere più di quanto si possiede: l'utenza non ha " + held + " " + strings.Join(where, " e ") + "."
	},
	domain.DenyBackofficeActor: testo("Sull'API BACKOFFICE agiscono solo operatori e applicazioni."),
	domain.DenyEmptyPayment:    testo("Il pagamento non copre alcuna pendenza nell'ambito dell'utenza."),
	domain.DenyNoRoles:         testo("L'utenza non ha alcun ruolo."),
	domain.DenyProfileOperator: testo("Solo gli operatori cambiano il proprio profilo."),
	domain.DenyOwnProfile: testo("Un operatore cambia del proprio profilo solo la password: " +
		"il campo %s si concede con Anagrafica Ruoli W."),

	domain.DenyUnknownCaller: testo("Il chiamante non è un'utenza riconosciuta."),
	domain.DenyNoIDA2A:       testo("L'applicazione non ha un idA2A."),
	domain.DenyNoFiscalCode:  testo("Il cittadino non ha un codice fiscale."),
	domain.DenyDisabled:      testo("L'utenza è disabilitata."),

	domain.DenyAuthUnknown:     testo("L'API %s non ha questo tipo di autenticazione."),
	domain.DenyAuthRefused:     testo("L'API %s non accetta l'autenticazione %s."),
	domain.DenyNodoAuth:        testo("L'API NODO accetta solo le autenticazioni ssl e basic."),
	domain.DenyBackofficeEntry: testo("L'API BACKOFFICE è per gli operatori e le applicazioni che hanno almeno un ruolo."),
	domain.DenyAppEntry:        testo("L'API %s è per le applicazioni autorizzate su di essa."),
	domain.DenyPagamentoEntry: testo("L'API PAGAMENTO è per le applicazioni autorizzate su di essa, " +
		"i cittadini e i chiamanti anonimi."),
	domain.DenyNotEntered:   testo("Nell'API %s non si entra come utenza."),
	domain.DenyNoAPIProfile: testo("L'API %s non ha un profilo dell'applicazione."),

	domain.DenyNotApplication: testo("Solo le applicazioni hanno autorizzazioni sull'API %s."),
	domain.DenyNoGrant:        testo("L'applicazione non è autorizzata sull'API %s."),
	domain.DenyGrantDominio:   testo("Il dominio %s non è nell'ambito dell'applicazione sull'API %s."),
	domain.DenyGrantUnit:      testo("L'unità operativa %s del dominio %s non è nell'ambito dell'applicazione sull'API %s."),
	domain.DenyGrantTipo:      testo("Il tipo pendenza %s non è nell'ambito dell'applicazione sull'API %s."),
	domain.DenyGrantPendenza: testo("Il dominio, l'unità operativa e il tipo della pendenza " +
		"non sono nell'ambito dell'applicazione sull'API %s."),
	domain.DenyGrantPayment: testo("Il pagamento non tocca alcun dominio nell'ambito dell'applicazione sull'API RAGIONERIA."),

	domain.DenyNotOwnIDA2A:       testo("Un'applicazione scrive pendenze solo sotto il proprio idA2A."),
	domain.DenyNotCreator:        testo("Un'applicazione legge solo le pendenze che ha creato."),
	domain.DenyNotUpdater:        testo("Solo l'applicazione che ha creato la pendenza può modificarla."),
	domain.DenyNotReconciliation: testo("Un'applicazione legge solo le riconciliazioni che ha creato."),
	domain.DenyNotRewriter:       testo("Questa riconciliazione è stata creata da un'altra applicazione."),

	domain.DenyCitizenNotPayer: testo("Un cittadino vede solo le pendenze di cui è debitore."),
	domain.DenyAnonymousRead:   testo("Un chiamante anonimo non può leggere pendenze."),
	domain.DenyReadPendenze:    testo("Il chiamante non può leggere pendenze sull'API PAGAMENTO."),
	domain.DenyCitizenPays:     testo("Un cittadino paga per identificativo solo le pendenze di cui è debitore."),
	domain.DenyAnonymousPays:   testo("Un chiamante anonimo paga solo avvisi e pagamenti spontanei."),
	domain.DenyStartPayment:    testo("Il chiamante non può avviare pagamenti."),
	domain.DenyPayNotice:       testo("Il chiamante non può pagare avvisi."),
	domain.DenyCitizenCreates:  testo("Un cittadino crea pendenze solo con sé stesso come debitore."),
	domain.DenyCreatePendenze:  testo("Il chiamante non può creare pendenze sull'API PAGAMENTO."),
	domain.DenyReadNotice:      testo("Il chiamante non può leggere avvisi."),
	domain.DenySessionPendenza: testo("Un chiamante anonimo legge solo le pendenze create nella propria sessione."),
	domain.DenyPayerCreated:    testo("Il tipo pendenza %s non ammette pendenze create dal debitore."),
	domain.DenyNotSpontaneous:  testo("Il tipo pendenza %s non ammette pagamenti spontanei."),
	domain.DenyPaymentOwner:    testo("Un'applicazione legge solo i pagamenti che ha avviato."),
	domain.DenyPaymentPayer:    testo("Un cittadino legge solo i pagamenti di cui è debitore o versante."),
	domain.DenySessionPayment:  testo("Un chiamante anonimo legge solo i pagamenti della propria sessione."),
	domain.DenyReadPayments:    testo("Il chiamante non può leggere pagamenti."),
	domain.DenyAskPendenzaByID: testo("Il chiamante non può chiedere di una pendenza per identificativo."),
	domain.DenyAskPaymentByID:  testo("Il chiamante non può chiedere di un pagamento per identificativo."),

	domain.DenyNotProtectable:   testo("La richiesta non è tra quelle che l'API pubblica serve sotto protezione."),
	domain.DenyCaptchaUnchecked: testo("L'API pubblica è protetta e il captcha non si è potuto verificare."),
	domain.DenyCaptchaFailed:    testo("L'API pubblica è protetta e la verifica del captcha non è riuscita."),
	domain.DenyCaptchaOrUUID:    testo("L'API pubblica è protetta: serve un token captcha o l'UUID della pendenza."),
	domain.DenyCaptchaRequired:  testo("L'API pubblica è protetta: serve un token captcha."),

	domain.DenyNodeCertificate:      testo("Il soggetto del certificato non è il principal del connettore al nodo di questo intermediario."),
	domain.DenyNodeCredentials:      testo("Le credenziali non sono quelle del connettore al nodo di questo intermediario."),
	domain.DenyIntermediaryDisabled: testo("L'intermediario è disabilitato."),
	domain.DenyEntityNotServed:      testo("Il dominio non è servito da questo intermediario."),
}

// regole words a ForbiddenError without a code (one made outside domain)
// by its Rule.
var regole = map[string]string{
	domain.RuleUnknownPrincipal:  "Il chiamante non è un'utenza registrata.",
	domain.RulePrincipalDisabled: "L'utenza è disabilitata.",
	domain.RuleAPIEntry:          "L'utenza non può usare questa funzione: nessun ruolo gliela consente.",
	domain.RuleServiceRight:      "Nessun ruolo dell'utenza dà il diritto che questa operazione chiede.",
	domain.RuleRoleScope:         "Nessun ruolo dell'utenza che dà il diritto richiesto copre questi dati.",
	domain.RuleDelegation:        "Non si può concedere più di quanto si possiede.",
	domain.RuleOwnProfile:        "Un operatore cambia del proprio profilo solo la password: il resto si concede con Anagrafica Ruoli W.",
}

// punti words a point of history the log does not hold (an Audit
// question's posizione or data), by its code.
var punti = map[string]func(e *projections.PointError) string{
	projections.PointBeyondLog: func(e *projections.PointError) string {
		return fmt.Sprintf("La posizione %d è oltre la fine del giornale: la sua ultima posizione è %d.", uint64(e.Position), uint64(e.Last))
	},
	projections.PointLogEmpty: func(e *projections.PointError) string {
		return fmt.Sprintf("La data %s (ora italiana) non è nella storia del giornale: il giornale è vuoto.", quando(e.Time))
	},
	projections.PointBeforeLog: func(e *projections.PointError) string {
		return fmt.Sprintf("La data %s (ora italiana) è precedente al primo evento del giornale, del %s (ora italiana).", quando(e.Time), quando(e.First))
	},
}

// domande words a QueryError, an Audit question the catalogue cannot
// decide.
var domande = map[string]parola{
	audit.QueryUnknownService: testo("servizio: «%s» non è un servizio."),
	audit.QueryUnknownRight:   testo("autorizzazione: «%s» non è né R né W."),
	audit.QueryNoPayment: testo("Indica una pendenza (idA2A, idPendenza), un avviso (idDominio, numeroAvviso) " +
		"o un pagamento spontaneo (idDominio, idTipoPendenza)."),
}

// diritto is a message naming its Args' service and right (at 0 and 1)
// as one value, then the values after them.
func diritto(format string) parola {
	return func(args []any) string {
		vals := []any{dirittoSu(arg0(args, 0), arg0(args, 1))}
		if len(args) > 2 {
			vals = append(vals, args[2:]...)
		}
		return fmt.Sprintf(format, vals...)
	}
}

// dirittoSu names a right on a service: "Pendenze W (scrittura)".
func dirittoSu(s, r any) string {
	switch r {
	case domain.RightRead:
		return fmt.Sprintf("%v R (lettura)", s)
	case domain.RightWrite:
		return fmt.Sprintf("%v W (scrittura)", s)
	}
	return fmt.Sprintf("%v %v", s, r)
}

func arg0(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return ""
}

func arg(args []any, i int) string { return fmt.Sprint(arg0(args, i)) }

func asError(v any) error {
	err, _ := v.(error)
	return err
}

// coded is the console's words for a denial by its Deny* code, or for an
// unprocessable request by its Unprocessable* code: ok false for any other
// error, or a code it has no words for.
func coded(err error) (string, bool) {
	var (
		forbidden *domain.ForbiddenError
		unproc    *operations.UnprocessableError
	)
	switch {
	case errors.As(err, &forbidden):
		if w, ok := dinieghi[forbidden.Code]; ok {
			return w(forbidden.Args), true
		}
	case errors.As(err, &unproc):
		if w, ok := nonProcessabili[unproc.Code]; ok {
			return w(unproc.Args), true
		}
	}
	return "", false
}

// messaggio is the console's words for err, an error of a command or an
// operation: ok false for any other error (the store's, the context's),
// which keeps the API's words.
func messaggio(err error) (string, bool) {
	var (
		invalid   *commands.InvalidError
		unproc    *commands.UnprocessableError
		forbidden *domain.ForbiddenError
		point     *projections.PointError
		query     *audit.QueryError
		missing   *audit.MissingFieldError
	)
	switch {
	case errors.As(err, &point):
		return punti[point.Code()](point), true
	case errors.As(err, &query) && domande[query.Code] != nil:
		return domande[query.Code](query.Args), true
	case errors.As(err, &missing):
		return missing.Field + ": obbligatorio per questa operazione.", true
	case errors.Is(err, audit.ErrBadQuery):
		return "Questa domanda non si può decidere così.", true
	case errors.Is(err, audit.ErrUnknownOperation):
		return "L'operazione non è nel catalogo di questa API.", true
	case errors.As(err, &invalid):
		if w, ok := invalidi[invalid.Code]; ok {
			return w(append([]any{invalid.Field}, invalid.Args...)), true
		}
		if invalid.Field == "" {
			return "La richiesta non è valida.", true
		}
		return invalid.Field + ": valore non valido.", true
	case errors.As(err, &unproc):
		if w, ok := coded(err); ok {
			return w, true
		}
		return "I dati sono ben formati ma non si possono usare così.", true
	case errors.As(err, &forbidden):
		if w, ok := coded(err); ok {
			return w, true
		}
		if m, ok := regole[forbidden.Rule]; ok {
			return m, true
		}
		return "Operazione non autorizzata.", true
	case errors.Is(err, commands.ErrPrincipalInUse):
		return "Il principal è già in uso da un'altra applicazione o operatore.", true
	case errors.Is(err, commands.ErrConflict):
		return "I dati sono stati modificati da un'altra operazione, o differiscono da quelli registrati: " +
			"ricarica la pagina e riprova.", true
	}
	return "", false
}
