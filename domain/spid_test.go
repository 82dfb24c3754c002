package domain

import (
	"errors"
	"testing"
)

// TestSPIDCaller: a spid caller is the registered principal its fiscal
// code names, on any API; an unregistered one is a citizen on PAGAMENTO
// and not authenticated elsewhere; a value that is not a fiscal code is
// no one, and no principal is looked up for it.
func TestSPIDCaller(t *testing.T) {
	t.Parallel()
	const code = "RSSMRA80A01H501U"
	op := Principal{Kind: KindOperator, Name: code, Enabled: true}
	cases := []struct {
		name      string
		api       API
		presented string
		want      Principal
		err       error
	}{
		{"registered_on_backoffice", APIBackoffice, code, op, nil},
		{"registered_on_pagamento_is_not_a_citizen", APIPagamento, code, op, nil},
		{"registered_named_with_prefix_and_lower_case", APIBackoffice, " tinit-rssmra80a01h501u ", op, nil},
		{"unregistered_on_pagamento_is_a_citizen", APIPagamento, "VRDLGU70B02F205X", Citizen("VRDLGU70B02F205X"), nil},
		{"unregistered_citizen_is_upper_cased", APIPagamento, "TINIT-vrdlgu70b02f205x", Citizen("VRDLGU70B02F205X"), nil},
		{"unregistered_on_backoffice_is_unauthenticated", APIBackoffice, "VRDLGU70B02F205X", Principal{}, ErrNotRegistered},
		{"unregistered_on_pendenze_is_unauthenticated", APIPendenze, "VRDLGU70B02F205X", Principal{}, ErrNotRegistered},
		{"not_a_fiscal_code_on_pagamento", APIPagamento, "ANONIMO", Principal{}, ErrNotFiscalCode},
		{"not_a_fiscal_code_empty", APIPagamento, "", Principal{}, ErrNotFiscalCode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var asked []string
			got, err := SPIDCaller(c.api, c.presented, func(name string) (Principal, bool) {
				asked = append(asked, name)
				return op, name == code
			})
			if !errors.Is(err, c.err) || got.Kind != c.want.Kind || got.Name != c.want.Name {
				t.Fatalf("SPIDCaller = %+v, %v; want %+v, %v", got, err, c.want, c.err)
			}
			if errors.Is(c.err, ErrNotFiscalCode) != (len(asked) == 0) {
				t.Fatalf("looked up %q", asked)
			}
		})
	}
}
