package eventstoretest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payauthz/payauthz/events"
)

// Harness opens stores for the suite.
type Harness interface {
	// Open returns a store over a fresh, empty log. The suite closes it.
	Open(t *testing.T) Reopener
}

// Reopener is one log: its open store, and a way to close it and open it
// again over the same data (for the durability test).
type Reopener interface {
	Store() events.Store
	// Reopen closes the current store and returns a new one over the same log.
	Reopen(t *testing.T) events.Store
}

// Capabilities are optional behaviours a backend may declare.
type Capabilities struct {
	// DedupeByID: a retried append with the same first event id is stored once.
	DedupeByID bool
	// DensePositions: commit positions are 1, 2, 3, ... with no gap
	// (JetStream's stream sequence). Without it positions only have to
	// grow strictly with each commit (KurrentDB's $all commit positions
	// are byte offsets).
	DensePositions bool
}

// Run runs every conformance test against stores from h.
func Run(t *testing.T, h Harness, caps Capabilities) {
	t.Run("round_trip", func(t *testing.T) { testRoundTrip(t, h) })
	t.Run("expected_version", func(t *testing.T) { testExpectedVersion(t, h) })
	t.Run("concurrent_appends_one_wins", func(t *testing.T) { testConcurrentAppends(t, h) })
	t.Run("global_order_total_and_gap_free", func(t *testing.T) { testGlobalOrder(t, h, caps) })
	t.Run("read_and_subscribe_from_middle", func(t *testing.T) { testFromMiddle(t, h) })
	t.Run("read_and_subscribe_envelopes_are_loads", func(t *testing.T) { testReadEnvelopes(t, h) })
	t.Run("handler_error_stops_read_and_subscribe", func(t *testing.T) { testHandlerError(t, h) })
	t.Run("read_from_a_position_is_inclusive", func(t *testing.T) { testReadFrom(t, h) })
	t.Run("subscribe_sees_new_appends", func(t *testing.T) { testSubscribeLive(t, h) })
	t.Run("reopen_loses_nothing", func(t *testing.T) { testReopen(t, h, caps) })
	t.Run("expected_version_is_per_stream_nats_7361", func(t *testing.T) { testPerStreamVersion(t, h) })
	t.Run("last_position", func(t *testing.T) { testLastPosition(t, h) })
	t.Run("invalid_append_writes_nothing", func(t *testing.T) { testInvalidAppend(t, h) })
	t.Run("commit_over_the_store_limit_is_too_large", func(t *testing.T) { testTooLarge(t, h) })
	if caps.DedupeByID {
		t.Run("retried_append_stored_once", func(t *testing.T) { testDedupe(t, h) })
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func entity(i int) events.Event {
	return events.CreditorEntityRegistered{IDDominio: fmt.Sprintf("%011d", i), RagioneSociale: fmt.Sprintf("Ente %d", i), Enabled: true}
}

func rec(id string, e events.Event) events.Record {
	return events.Record{ID: id, Event: e, Actor: "tester", CorrelationID: "corr-" + id}
}

func mustAppend(t *testing.T, s events.Store, stream string, exp events.Expected, recs ...events.Record) events.Position {
	t.Helper()
	pos, err := s.Append(ctx(t), stream, exp, recs...)
	if err != nil {
		t.Fatalf("append %s: %v", stream, err)
	}
	return pos
}

func lastVersion(t *testing.T, s events.Store, stream string) events.Version {
	t.Helper()
	envs, err := s.Load(ctx(t), stream)
	if err != nil {
		t.Fatalf("load %s: %v", stream, err)
	}
	if len(envs) == 0 {
		return 0
	}
	return envs[len(envs)-1].Version
}

func readAll(t *testing.T, s events.Store, from events.Position) []events.Envelope {
	t.Helper()
	var out []events.Envelope
	if err := s.Read(ctx(t), from, func(_ context.Context, env events.Envelope) error {
		out = append(out, env)
		return nil
	}); err != nil {
		t.Fatalf("read: %v", err)
	}
	return out
}

func testRoundTrip(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	p1 := mustAppend(t, s, "dominio-1", events.ExpectNoStream(), rec("a1", entity(1)))
	v := lastVersion(t, s, "dominio-1")
	p2 := mustAppend(t, s, "dominio-1", events.ExpectVersion(v),
		rec("a2", events.CreditorEntityUpdated{IDDominio: "00000000001", RagioneSociale: "Nuovo", Enabled: false}),
		rec("a3", events.CreditorEntityUpdated{IDDominio: "00000000001", RagioneSociale: "Ancora", Enabled: true}))
	if p2 <= p1 {
		t.Fatalf("positions %d then %d: not increasing", p1, p2)
	}
	envs, err := s.Load(ctx(t), "dominio-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != 3 {
		t.Fatalf("loaded %d events, want 3", len(envs))
	}
	want := []struct {
		id, name string
		pos      events.Position
		index    int
		size     int
	}{{"a1", "CreditorEntityRegistered", p1, 0, 1}, {"a2", "CreditorEntityUpdated", p2, 0, 2}, {"a3", "CreditorEntityUpdated", p2, 1, 2}}
	for i, w := range want {
		e := envs[i]
		if e.ID != w.id || e.Name != w.name || e.Position != w.pos || e.Index != w.index || e.CommitSize != w.size ||
			e.Stream != "dominio-1" || e.Actor != "tester" || e.CorrelationID != "corr-"+w.id || e.Time.IsZero() {
			t.Fatalf("event %d = %+v, want %+v", i, e, w)
		}
	}
	if got, ok := envs[2].Event.(events.CreditorEntityUpdated); !ok || got.RagioneSociale != "Ancora" || !got.Enabled {
		t.Fatalf("decoded payload = %#v", envs[2].Event)
	}
	if envs[1].Version != envs[2].Version || envs[0].Version == envs[1].Version {
		t.Fatalf("versions %d %d %d: one per commit", envs[0].Version, envs[1].Version, envs[2].Version)
	}
	if got, err := s.Load(ctx(t), "dominio-unknown"); err != nil || len(got) != 0 {
		t.Fatalf("unknown stream: %v, %v", got, err)
	}
}

// testInvalidAppend: an Append of no events or to no stream is refused
// with ErrInvalidAppend, and the log stays as it was.
func testInvalidAppend(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	before := mustAppend(t, s, "dominio-1", events.ExpectNoStream(), rec("", entity(1)))
	for _, c := range []struct {
		name   string
		stream string
		recs   []events.Record
	}{
		{"no_events", "dominio-2", nil},
		{"no_stream", "", []events.Record{rec("", entity(2))}},
	} {
		if _, err := s.Append(ctx(t), c.stream, events.ExpectNoStream(), c.recs...); !errors.Is(err, events.ErrInvalidAppend) {
			t.Fatalf("%s: %v, want ErrInvalidAppend", c.name, err)
		}
	}
	if last, err := s.LastPosition(ctx(t)); err != nil || last != before {
		t.Fatalf("last position after refused appends: %d, %v; want %d", last, err, before)
	}
}

// testTooLarge: a commit over what the store takes in one append (NATS's
// max_payload, KurrentDB's maximum append size: 1 MiB by default) is
// refused with ErrTooLarge, a client error and never an outage, and
// writes nothing.
func testTooLarge(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	big := events.CreditorEntityRegistered{IDDominio: "00000000001", RagioneSociale: strings.Repeat("x", 2<<20)}
	_, err := s.Append(ctx(t), "dominio-1", events.ExpectNoStream(), rec("", big))
	if !errors.Is(err, events.ErrTooLarge) || errors.Is(err, events.ErrUnavailable) {
		t.Fatalf("append of a 2 MiB event: %v, want ErrTooLarge", err)
	}
	if last, err := s.LastPosition(ctx(t)); err != nil || last != 0 {
		t.Fatalf("last position after the refused commit: %d, %v; want 0", last, err)
	}
	mustAppend(t, s, "dominio-1", events.ExpectNoStream(), rec("", entity(1)))
}

func testExpectedVersion(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	mustAppend(t, s, "ruolo-r", events.ExpectNoStream(), rec("", entity(1)))
	if _, err := s.Append(ctx(t), "ruolo-r", events.ExpectNoStream(), rec("", entity(2))); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("ExpectNoStream on an existing stream: %v, want ErrConflict", err)
	}
	v1 := lastVersion(t, s, "ruolo-r")
	mustAppend(t, s, "ruolo-r", events.ExpectVersion(v1), rec("", entity(3)))
	if _, err := s.Append(ctx(t), "ruolo-r", events.ExpectVersion(v1), rec("", entity(4))); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("stale version: %v, want ErrConflict", err)
	}
	v2 := lastVersion(t, s, "ruolo-r")
	mustAppend(t, s, "ruolo-r", events.ExpectVersion(v2), rec("", entity(5)))
	if envs, _ := s.Load(ctx(t), "ruolo-r"); len(envs) != 3 {
		t.Fatalf("stream holds %d events, want 3 (conflicts must write nothing)", len(envs))
	}
}

func testConcurrentAppends(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	for _, n := range []int{2, 8} {
		stream := fmt.Sprintf("pendenza-race-%d", n)
		mustAppend(t, s, stream, events.ExpectNoStream(), rec("", entity(0)))
		v := lastVersion(t, s, stream)
		errs := Concurrently(n, func(i int) error {
			_, err := s.Append(ctx(t), stream, events.ExpectVersion(v), rec("", entity(i+1)))
			return err
		})
		if wins := Wins(t, errs, events.ErrConflict); wins != 1 {
			t.Fatalf("%d concurrent appends: %d won, want exactly 1", n, wins)
		}
		if envs, _ := s.Load(ctx(t), stream); len(envs) != 2 {
			t.Fatalf("stream holds %d events, want 2", len(envs))
		}
	}
}

func testGlobalOrder(t *testing.T, h Harness, caps Capabilities) {
	s := h.Open(t).Store()
	const writers, each = 6, 25
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	appended := make([][]events.Position, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := fmt.Sprintf("applicazione-w%d", w)
			exp := events.ExpectNoStream()
			for i := range each {
				pos, err := s.Append(context.Background(), stream, exp, rec("", entity(w*1000+i)))
				if err != nil {
					errc <- err
					return
				}
				appended[w] = append(appended[w], pos)
				// The version comes from the log, never from the
				// position: backends count versions their own way.
				envs, err := s.Load(context.Background(), stream)
				if err != nil || len(envs) != i+1 {
					errc <- fmt.Errorf("load %s: %d events, %v", stream, len(envs), err)
					return
				}
				exp = events.ExpectVersion(envs[i].Version)
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatalf("append: %v", err)
	}
	sctx, cancel := context.WithCancel(ctx(t))
	defer cancel()
	var seen []events.Position
	err := s.Subscribe(sctx, 0, func(_ context.Context, env events.Envelope) error {
		seen = append(seen, env.Position)
		if len(seen) == writers*each {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("subscribe ended with %v", err)
	}
	var want []events.Position
	for _, ps := range appended {
		want = append(want, ps...)
	}
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Fatalf("subscription saw %v, appends returned %v: order not total", seen, want)
	}
	if caps.DensePositions {
		for i, p := range seen {
			if p != events.Position(i+1) {
				t.Fatalf("event %d at position %d: positions not gap-free", i, p)
			}
		}
	}
}

func testFromMiddle(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	var positions []events.Position
	for i := range 10 {
		positions = append(positions, mustAppend(t, s, fmt.Sprintf("dominio-%d", i), events.ExpectNoStream(), rec("", entity(i))))
	}
	mid := positions[4]
	got := readAll(t, s, mid)
	if len(got) != 5 || got[0].Position != positions[5] || got[4].Position != positions[9] {
		t.Fatalf("read from %d: %d events starting %v", mid, len(got), got)
	}
	sctx, cancel := context.WithCancel(ctx(t))
	defer cancel()
	var sub []events.Position
	_ = s.Subscribe(sctx, mid, func(_ context.Context, env events.Envelope) error {
		sub = append(sub, env.Position)
		if len(sub) == 5 {
			cancel()
		}
		return nil
	})
	if len(sub) != 5 || sub[0] != positions[5] {
		t.Fatalf("subscribe from %d saw %v", mid, sub)
	}
	if got := readAll(t, s, positions[9]); len(got) != 0 {
		t.Fatalf("read from the end returned %d events", len(got))
	}
}

// testReadEnvelopes: Read, Subscribe and, where the store offers them,
// ReadRaw and SubscribeRaw hand over each event with what Load gives of
// it: id, name, stream, version, position, place and size of its commit,
// actor, correlation id, time (a Record's own time kept, as a restored
// backup's), payload bytes and (but for the raw readers) the decoded
// event. The event log shows stream, actor and payload; the projections
// count a commit's events by Index and CommitSize; the log tree hashes
// the payload bytes.
func testReadEnvelopes(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	timed := rec("t1", entity(1))
	timed.Time = at
	mustAppend(t, s, "dominio-1", events.ExpectNoStream(), timed)
	mustAppend(t, s, "ruolo-r", events.ExpectNoStream(), rec("r1", entity(2)), rec("r2", entity(3)))
	var loaded []events.Envelope
	for _, stream := range []string{"dominio-1", "ruolo-r"} {
		envs, err := s.Load(ctx(t), stream)
		if err != nil {
			t.Fatalf("load %s: %v", stream, err)
		}
		loaded = append(loaded, envs...)
	}
	if !loaded[0].Time.Equal(at) {
		t.Fatalf("a record's time %v was stored as %v", at, loaded[0].Time)
	}
	subscribe := func(sub func(context.Context, events.Position, events.Handler) error) func(context.Context, events.Position, events.Handler) error {
		return func(c context.Context, from events.Position, h events.Handler) error {
			c, cancel := context.WithCancel(c)
			defer cancel()
			n := 0
			err := sub(c, from, func(c context.Context, env events.Envelope) error {
				if n++; n == len(loaded) {
					cancel()
				}
				return h(c, env)
			})
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
	}
	readers := map[string]func(context.Context, events.Position, events.Handler) error{
		"read": s.Read, "subscribe": subscribe(s.Subscribe)}
	raw := map[string]bool{}
	if r, ok := s.(events.RawReader); ok {
		readers["read_raw"], raw["read_raw"] = r.ReadRaw, true
	}
	if r, ok := s.(events.RawSubscriber); ok {
		readers["subscribe_raw"], raw["subscribe_raw"] = subscribe(r.SubscribeRaw), true
	}
	for name, read := range readers {
		t.Run(name, func(t *testing.T) {
			var got []events.Envelope
			if err := read(ctx(t), 0, func(_ context.Context, env events.Envelope) error {
				got = append(got, env)
				return nil
			}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(got) != len(loaded) {
				t.Fatalf("%s handed %d events, Load %d", name, len(got), len(loaded))
			}
			for i, env := range got {
				want := loaded[i]
				if raw[name] {
					if env.Event != nil {
						t.Fatalf("%s decoded event %d: %#v", name, i, env.Event)
					}
					want.Event = nil
				}
				if env.ID != want.ID || env.Name != want.Name || env.Stream != want.Stream || env.Version != want.Version ||
					env.Position != want.Position || env.Index != want.Index || env.CommitSize != want.CommitSize ||
					env.Actor != want.Actor || env.CorrelationID != want.CorrelationID || !env.Time.Equal(want.Time) ||
					string(env.Data) != string(want.Data) || !reflect.DeepEqual(env.Event, want.Event) {
					t.Fatalf("%s handed event %d as %+v, Load as %+v", name, i, env, want)
				}
			}
		})
	}
}

// testHandlerError: a handler's error ends Read and Subscribe at once,
// and they return it (errors.Is): the event log stops a page that way,
// and the projections a subscription whose commit they cannot take.
func testHandlerError(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	for i := range 3 {
		mustAppend(t, s, fmt.Sprintf("dominio-%d", i), events.ExpectNoStream(), rec("", entity(i)))
	}
	stop := errors.New("enough")
	for name, read := range map[string]func(context.Context, events.Position, events.Handler) error{
		"read": s.Read, "subscribe": s.Subscribe} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			done := make(chan error, 1)
			go func() {
				done <- read(ctx(t), 0, func(context.Context, events.Envelope) error {
					calls++
					return stop
				})
			}()
			select {
			case err := <-done:
				if !errors.Is(err, stop) || calls != 1 {
					t.Fatalf("%s ended with %v after %d calls, want the handler's error after 1", name, err, calls)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s went on after its handler's error", name)
			}
		})
	}
}

// testReadFrom: ReadFrom(at) hands out the commit at position at, whole,
// and those after it, for every position a caller has: 0, a commit's
// position, and one past it (a listing's next page). What Read(at-1)
// would ask only a store with dense positions can answer.
func testReadFrom(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	p1 := mustAppend(t, s, "dominio-1", events.ExpectNoStream(), rec("", entity(1)))
	p2 := mustAppend(t, s, "dominio-2", events.ExpectNoStream(), rec("", entity(2)), rec("", entity(3)), rec("", entity(4)))
	p3 := mustAppend(t, s, "dominio-3", events.ExpectNoStream(), rec("", entity(5)))
	all := []events.Position{p1, p2, p2, p2, p3}
	for _, c := range []struct {
		name string
		at   events.Position
		want []events.Position
	}{
		{"zero", 0, all},
		{"first_commit", p1, all},
		{"past_the_first_commit", p1 + 1, all[1:]},
		{"a_commit_of_three", p2, all[1:]},
		{"past_it", p2 + 1, all[4:]},
		{"the_last_commit", p3, all[4:]},
		{"past_the_end", p3 + 1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []events.Position
			var indexes []int
			err := s.ReadFrom(ctx(t), c.at, func(_ context.Context, env events.Envelope) error {
				got, indexes = append(got, env.Position), append(indexes, env.Index)
				return nil
			})
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("ReadFrom(%d) (commits at %d, %d, %d) = %v, %v; want %v", c.at, p1, p2, p3, got, err, c.want)
			}
			if len(got) >= 4 && !slices.Equal(indexes[len(got)-4:len(got)-1], []int{0, 1, 2}) {
				t.Fatalf("ReadFrom(%d): the commit at %d came as indexes %v, want it whole", c.at, p2, indexes)
			}
		})
	}
}

func testSubscribeLive(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	mustAppend(t, s, "dominio-x", events.ExpectNoStream(), rec("", entity(1)))
	sctx, cancel := context.WithCancel(ctx(t))
	defer cancel()
	got := make(chan events.Envelope, 10)
	done := make(chan error, 1)
	go func() {
		done <- s.Subscribe(sctx, 0, func(_ context.Context, env events.Envelope) error { got <- env; return nil })
	}()
	first := <-got
	if first.Stream != "dominio-x" {
		t.Fatalf("first = %+v", first)
	}
	p := mustAppend(t, s, "dominio-y", events.ExpectNoStream(), rec("live", entity(2)))
	select {
	case env := <-got:
		if env.ID != "live" || env.Position != p {
			t.Fatalf("live event = %+v", env)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("subscriber did not see a new append")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("subscribe ended with %v, want context.Canceled", err)
	}
}

func testReopen(t *testing.T, h Harness, caps Capabilities) {
	r := h.Open(t)
	s := r.Store()
	var last events.Position
	for i := range 20 {
		last = mustAppend(t, s, fmt.Sprintf("operatore-%d", i%3), expectFor(t, s, fmt.Sprintf("operatore-%d", i%3)), rec("", entity(i)))
	}
	s = r.Reopen(t)
	got := readAll(t, s, 0)
	if len(got) != 20 || got[19].Position != last {
		t.Fatalf("after reopen: %d events, last at %d; want 20 ending at %d", len(got), got[len(got)-1].Position, last)
	}
	if envs, _ := s.Load(ctx(t), "operatore-1"); len(envs) != 7 {
		t.Fatalf("operatore-1 has %d events after reopen, want 7", len(envs))
	}
	// Appends go on from where the log was.
	p := mustAppend(t, s, "operatore-1", expectFor(t, s, "operatore-1"), rec("", entity(99)))
	if p <= last || (caps.DensePositions && p != last+1) {
		t.Fatalf("append after reopen at %d, after %d", p, last)
	}
}

func expectFor(t *testing.T, s events.Store, stream string) events.Expected {
	return events.ExpectVersion(lastVersion(t, s, stream))
}

// testPerStreamVersion guards against a stream's expected version being
// checked against other subjects (nats-server issue 7361; the pinned server
// is v2.15.2). Streams whose names are prefixes or wildcard lookalikes of
// each other must stay independent.
func testPerStreamVersion(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	for _, pair := range [][2]string{{"a", "a.b"}, {"applicazione-x", "applicazione-x2"}, {"x.*", "x.>"}, {"p q", "p"}} {
		a, b := pair[0], pair[1]
		mustAppend(t, s, a, events.ExpectNoStream(), rec("", entity(1)))
		mustAppend(t, s, b, events.ExpectNoStream(), rec("", entity(2)))
		mustAppend(t, s, a, expectFor(t, s, a), rec("", entity(3)))
		va := lastVersion(t, s, a)
		if va == lastVersion(t, s, b) {
			t.Fatalf("%s and %s share version %d after 2 and 1 commits", a, b, va)
		}
		if _, err := s.Append(ctx(t), b, events.ExpectVersion(va), rec("", entity(4))); !errors.Is(err, events.ErrConflict) {
			t.Fatalf("%s checked against %s's version: %v", b, a, err)
		}
	}
	mustAppend(t, s, "fresh-c", events.ExpectNoStream(), rec("", entity(5)))
}

func testLastPosition(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	if p, err := s.LastPosition(ctx(t)); err != nil || p != 0 {
		t.Fatalf("empty log: %d, %v", p, err)
	}
	p := mustAppend(t, s, "dominio-1", events.ExpectNoStream(), rec("", entity(1)), rec("", entity(2)))
	if got, err := s.LastPosition(ctx(t)); err != nil || got != p {
		t.Fatalf("last = %d, %v; want %d", got, err, p)
	}
}

func testDedupe(t *testing.T, h Harness) {
	s := h.Open(t).Store()
	p1 := mustAppend(t, s, "pagamento-1", events.ExpectNoStream(), rec("same-id", entity(1)))
	// The retry carries the same id: the store answers with the first
	// append's position instead of storing it again (or reports the
	// conflict its expected version now causes); either way one event.
	p2, err := s.Append(ctx(t), "pagamento-1", events.ExpectNoStream(), rec("same-id", entity(1)))
	if err != nil && !errors.Is(err, events.ErrConflict) {
		t.Fatalf("retried append: %v", err)
	}
	if err == nil && p2 != p1 {
		t.Fatalf("retried append stored again at %d (first at %d)", p2, p1)
	}
	if envs, _ := s.Load(ctx(t), "pagamento-1"); len(envs) != 1 {
		t.Fatalf("stream holds %d events, want 1", len(envs))
	}
}

// Concurrently runs f(0) to f(n-1) at once and returns their errors.
func Concurrently(n int, f func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	return errs
}

// Wins counts the concurrent writes that succeeded; every other must have
// failed with loser, or t fails.
func Wins(t testing.TB, errs []error, loser error) int {
	t.Helper()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case errors.Is(err, loser):
		default:
			t.Errorf("write %d: %v, want success or %v", i, err, loser)
		}
	}
	return won
}
