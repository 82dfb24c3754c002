package whatcan_test

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/operations/audit"
	"github.com/payauthz/payauthz/operations/whatcan"
	"github.com/payauthz/payauthz/projections"
)

// BenchmarkWhatCan measures what-can at the end of a log of 100 entities,
// 1,000 applications (each authorized on PENDENZE for one entity), an
// operator reading Pendenze on 10 entities, and PAYAUTHZ_BENCH_EVENTS
// pendenze (default 100000; the README's figures use 1000000), warm (read
// models already there, applied without log I/O): every operation for
// each of the 1,000 applications, and the pendenze the operator could
// read (a tenth of them), each decided by the operation's decision.
func BenchmarkWhatCan(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("PAYAUTHZ_BENCH_EVENTS")); err == nil && v > 0 {
		n = v
	}
	m := projections.New()
	pos := events.Position(0)
	apply := func(e events.Event) {
		pos++
		if err := m.Apply(events.Envelope{Position: pos, CommitSize: 1, Name: e.EventName(), Event: e}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 100 {
		apply(events.CreditorEntityRegistered{IDDominio: fmt.Sprintf("%011d", i), RagioneSociale: "Comune", Enabled: true})
	}
	apply(events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Descrizione: "Tari", Enabled: true})
	// Basic needs a password to pass: one hash serves every principal.
	hash, err := domain.HashPassword("bench-password-1")
	if err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		id := fmt.Sprintf("app%05d", i)
		apply(events.ApplicationRegistered{IDA2A: id, Principal: id, Enabled: true, Roles: []string{}, PasswordHash: hash})
		apply(events.ApplicationAPIAuthorized{IDA2A: id, API: "PENDENZE", Domini: []string{fmt.Sprintf("%011d", i%100)}, TipiPendenza: []string{"*"}})
	}
	var tenth []string
	for i := range 10 {
		tenth = append(tenth, fmt.Sprintf("%011d", i))
	}
	apply(events.RoleDefined{IDRuolo: "tenth", ACL: []events.ACLEntry{{Service: "Pendenze", Rights: []string{"R"}}}, Domini: tenth, TipiPendenza: []string{"*"}})
	apply(events.OperatorRegistered{Principal: "auditor", RagioneSociale: "Ente", Enabled: true, Roles: []string{"tenth"}, PasswordHash: hash})
	for i := range n {
		apply(jetstreamtest.Event(i))
	}
	b.Run("every_operation_of_1000_applications", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			for i := range 1000 {
				res, err := whatcan.WhatCan(m, fmt.Sprintf("app%05d", i))
				if err != nil || res.Owned.Pendenze != n/1000 {
					b.Fatalf("%v %+v", err, res)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*1000), "µs/principal")
		b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N*1000), "cpu-µs/principal")
	})
	b.Run("pendenze_readable_by_an_operator", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			found := 0
			page, err := whatcan.Resources(m, "auditor", domain.APIBackoffice, "servizio", "Pendenze", "R", 0, 0,
				func(audit.Resource) error { found++; return nil })
			if err != nil || page.Decided != n || found != n/10 {
				b.Fatalf("%v: decided %d, found %d", err, page.Decided, found)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
		b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "decisions/cpu-s")
	})
}

// cpuTime is the process's user and system CPU time: on a shared machine
// it shows the cost apart from the waiting for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
