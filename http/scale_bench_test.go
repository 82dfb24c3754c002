package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payauthz/payauthz/commands"
	"github.com/payauthz/payauthz/domain"
	"github.com/payauthz/payauthz/events"
	"github.com/payauthz/payauthz/events/jetstream"
	"github.com/payauthz/payauthz/events/jetstream/jetstreamtest"
	"github.com/payauthz/payauthz/projections"
)

// The scale of BenchmarkScale: 10,000 applications, each authorized on
// the Pendenze API for one of 5,000 creditor entities, and
// PAYAUTHZ_SCALE_PENDENZE pendenze spread over them, one in ten updated
// once (so 1.1 events per pendenza).
const (
	scaleApps     = 10_000
	scaleEntities = 5_000
)

func scaleApp(i int) string    { return fmt.Sprintf("app%05d", i%scaleApps) }
func scaleEntity(i int) string { return fmt.Sprintf("%011d", i%scaleEntities) }

func scalePendenza(i int) events.PendenzaCreated {
	return events.PendenzaCreated{IDA2A: scaleApp(i), IDPendenza: fmt.Sprintf("P%08d", i), IDDominio: scaleEntity(i % scaleApps),
		IDTipoPendenza: "TARI", Causale: "Tassa rifiuti " + strconv.Itoa(i%100), AmountCents: int64(1000 + i%9000),
		Payer:        events.Subject{Tipo: "F", Identificativo: fmt.Sprintf("RSSMRA80A01H%04d", i%10000), Anagrafica: "Mario Rossi"},
		NumeroAvviso: fmt.Sprintf("3%017d", i), UUID: fmt.Sprintf("%032x", i)}
}

// scale is the state BenchmarkScale builds once per test binary.
var scale struct {
	once    sync.Once
	err     error
	store   *jetstream.Store
	model   *projections.ReadModel // loaded from the snapshot
	n       int                    // pendenze
	events  uint64
	metrics map[string]float64
}

// BenchmarkScale is the scale test of one replica, opt-in:
// PAYAUTHZ_SCALE_PENDENZE=1000000 (or 10000000) go test ./http -run '^$'
// -bench Scale. It writes the log once (through async publishes of an
// unsynced embedded server; PAYAUTHZ_SCALE_DIR keeps it for the next run),
// then reports, in sub-benchmark "load": the full replay into every
// projection (s, events/s), the snapshot's write time and size, the time
// to ready from the snapshot (load plus catch-up), the Go heap held by the
// read models per pendenza and the process's RSS after loading from the
// snapshot (NATS server included). "decision" is one permission decision
// against that model; the GET sub-benchmarks are an authorized GET of a
// pendenza over loopback next to a bare Echo handler returning its JSON.
func BenchmarkScale(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("PAYAUTHZ_SCALE_PENDENZE"))
	if n <= 0 {
		b.Skip("set PAYAUTHZ_SCALE_PENDENZE (e.g. 1000000) to run the scale test")
	}
	scale.once.Do(func() { scale.err = buildScale(b, n) })
	if scale.err != nil {
		b.Fatal(scale.err)
	}
	m := scale.model
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
		}
		for k, v := range scale.metrics {
			b.ReportMetric(v, k)
		}
	})
	app, id := scaleApp(4242), fmt.Sprintf("P%08d", n-scaleApps+4242)
	b.Run("decision", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec, _ := m.Lookup(app)
			v, ok := m.PendenzaView(app, id)
			if !ok {
				b.Fatal("missing pendenza")
			}
			if err := domain.CanReadOwnPendenza(rec.Principal, v); err != nil {
				b.Fatal(err)
			}
		}
	})

	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := New(Config{HTTPAddr: "127.0.0.1:0", ConsistencyWait: time.Second, MaxBodyBytes: 1 << 20,
		ReadyAt: m.AppliedPosition(), DisableDecisionLog: true}, scale.store, m, commands.NewHandler(scale.store, m, logger), logger)
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(ctx) }()
	defer func() { cancel(); <-served }()
	for len(srv.Addrs()) < 1 {
		time.Sleep(5 * time.Millisecond)
	}
	path := pe + "/pendenze/" + app + "/" + id
	url := "http://" + srv.Addrs()[0].String() + path
	auth := basicHeader(app, pw)
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", auth)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		b.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
	}
	bareURL := serveBare(b, path, body)
	b.Run("get_authorized", func(b *testing.B) { loadHTTP(b, url, auth) })
	b.Run("get_bare_echo", func(b *testing.B) { loadHTTP(b, bareURL, auth) })
	b.Run("get_paired", func(b *testing.B) { pairedHTTP(b, url, bareURL, auth) })
}

// buildScale writes (or finds) the log, replays it, snapshots it and
// loads the replica's model from the snapshot, recording the figures.
func buildScale(b *testing.B, n int) error {
	ctx := context.Background()
	dir := os.Getenv("PAYAUTHZ_SCALE_DIR")
	if dir == "" {
		dir = b.TempDir()
	} else {
		dir = filepath.Join(dir, strconv.Itoa(n))
	}
	s, err := jetstream.Open(ctx, jetstream.Config{DataDir: dir, Unsynced: true})
	if err != nil {
		return err
	}
	scale.store, scale.n, scale.metrics = s, n, map[string]float64{}
	b.Cleanup(func() { s.Close() })
	last, err := s.LastPosition(ctx)
	if err != nil {
		return err
	}
	updates := n / 10
	total := 1 + scaleEntities + scaleApps + n + updates
	if int(last) != total {
		if last != 0 {
			return fmt.Errorf("%s holds %d commits, want %d or none", dir, last, total)
		}
		start := time.Now()
		if err := writeScaleLog(ctx, s, n, updates); err != nil {
			return err
		}
		b.Logf("wrote %d commits in %s", total, time.Since(start).Round(time.Millisecond))
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	// With PAYAUTHZ_SCALE_DIR the snapshot is kept beside the log; with
	// PAYAUTHZ_SCALE_REUSE=1 a kept one is loaded without replaying the log
	// again (to profile the load alone: -cpuprofile).
	snapDir := filepath.Join(dir, "snapshots")
	if _, err := os.Stat(filepath.Join(snapDir, projections.SnapshotFile)); err == nil && os.Getenv("PAYAUTHZ_SCALE_REUSE") == "1" {
		b.Logf("loading the snapshot kept in %s: replay and snapshot write skipped", snapDir)
	} else if err := replayScale(b, ctx, s, snapDir, logger); err != nil {
		return err
	}
	heap0 := liveHeap()
	debug.FreeOSMemory()

	start := time.Now()
	m, err := projections.LoadSnapshot(snapDir)
	if err != nil {
		return err
	}
	if err := m.CatchUp(ctx, s, logger); err != nil {
		return err
	}
	scale.metrics["ready-from-snapshot-s"] = time.Since(start).Seconds()
	scale.events = m.AppliedEvents()
	if m.PendenzeCount() != n {
		return fmt.Errorf("loaded %d pendenze, want %d", m.PendenzeCount(), n)
	}
	scale.metrics["heap-B/pendenza"] = float64(liveHeap()-heap0) / float64(n)
	debug.FreeOSMemory()
	rss := rssBytes()
	scale.metrics["rss-MB"] = float64(rss) / 1e6
	scale.metrics["rss-B/pendenza"] = float64(rss) / float64(n)
	scale.model = m
	b.Logf("%d pendenze, %d events: %v", n, scale.events, scale.metrics)
	return nil
}

// replayScale replays the whole log into every projection and writes the
// snapshot, recording the figures.
func replayScale(b *testing.B, ctx context.Context, s *jetstream.Store, snapDir string, logger *slog.Logger) error {
	n := scale.n
	heap0 := liveHeap()
	start := time.Now()
	m := projections.New()
	if err := m.CatchUp(ctx, s, logger); err != nil {
		return err
	}
	took := time.Since(start)
	if m.PendenzeCount() != n {
		return fmt.Errorf("replayed %d pendenze, want %d", m.PendenzeCount(), n)
	}
	scale.metrics["replay-s"] = took.Seconds()
	scale.metrics["replay-events/s"] = float64(m.AppliedEvents()) / took.Seconds()
	scale.metrics["replayed-heap-B/pendenza"] = float64(liveHeap()-heap0) / float64(n)

	start = time.Now()
	if _, err := m.WriteSnapshot(snapDir); err != nil {
		return err
	}
	scale.metrics["snapshot-write-s"] = time.Since(start).Seconds()
	fi, err := os.Stat(filepath.Join(snapDir, projections.SnapshotFile))
	if err != nil {
		return err
	}
	scale.metrics["snapshot-MB"] = float64(fi.Size()) / 1e6
	runtime.KeepAlive(m)
	return nil
}

// writeScaleLog writes the entities, the type, the applications (each
// registered and authorized in one commit), then the pendenze and the
// updates of one in ten of them.
func writeScaleLog(ctx context.Context, s *jetstream.Store, n, updates int) error {
	hash, err := domain.HashPassword(pw)
	if err != nil {
		return err
	}
	if _, err := s.Append(ctx, "type/TARI", events.ExpectNoStream(),
		events.Record{Event: events.PendenzaTypeRegistered{IDTipoPendenza: "TARI", Descrizione: "Tassa rifiuti", Enabled: true}}); err != nil {
		return err
	}
	if err := jetstreamtest.Publish(ctx, s, 0, scaleEntities, func(i int) (string, events.Event) {
		return "entity/" + scaleEntity(i), events.CreditorEntityRegistered{IDDominio: scaleEntity(i), RagioneSociale: "Ente " + scaleEntity(i), Enabled: true}
	}); err != nil {
		return err
	}
	for i := range scaleApps {
		id := scaleApp(i)
		if _, err := s.Append(ctx, "application/"+id, events.ExpectNoStream(),
			events.Record{Event: events.ApplicationRegistered{IDA2A: id, Principal: id, PasswordHash: hash, Enabled: true, Roles: []string{}}},
			events.Record{Event: events.ApplicationAPIAuthorized{IDA2A: id, API: "PENDENZE", Domini: []string{scaleEntity(i)},
				TipiPendenza: []string{"*"}}}); err != nil {
			return err
		}
	}
	// One subject per application: a subject per pendenza (as commands
	// write them) would measure the NATS server's per-subject index too.
	if err := jetstreamtest.Publish(ctx, s, 0, n, func(i int) (string, events.Event) {
		return "pendenze/" + scaleApp(i), scalePendenza(i)
	}); err != nil {
		return err
	}
	return jetstreamtest.Publish(ctx, s, 0, updates, func(i int) (string, events.Event) {
		e := scalePendenza(i * 10)
		e.Causale += " (rettifica)"
		return "pendenze/" + scaleApp(i*10), events.PendenzaUpdated(e)
	})
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// rssBytes is the process's resident set size (Linux; 0 elsewhere).
func rssBytes() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
