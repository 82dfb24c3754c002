package domain

import "testing"

// TestRegistryService pins which service governs each unscoped Backoffice
// registry, as API.md section 4 states it: every read, list and write of
// the registry takes its service from here.
func TestRegistryService(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		registry Registry
		service  Service
		label    string // API.md's label of the service
	}{
		{"intermediari", RegistryIntermediari, ServiceAnagraficaPagoPA, "Anagrafica PagoPA"},
		{"ruoli", RegistryRuoli, ServiceAnagraficaRuoli, "Anagrafica Ruoli"},
		{"operatori", RegistryOperatori, ServiceAnagraficaRuoli, "Anagrafica Ruoli"},
		{"applicazioni", RegistryApplicazioni, ServiceAnagraficaApplicazioni, "Anagrafica Applicazioni"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.registry.String(); got != tc.name {
				t.Errorf("String() = %q, want %q", got, tc.name)
			}
			if got := tc.registry.Service(); got != tc.service || got.String() != tc.label {
				t.Errorf("Service() = %q, want %q", got, tc.label)
			}
		})
	}
	if got := (Registry{}).Service(); got != (Service{}) {
		t.Errorf("the zero Registry's service is %q, want the invalid zero Service", got)
	}
}
