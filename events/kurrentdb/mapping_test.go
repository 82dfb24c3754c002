package kurrentdb

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	kdb "github.com/kurrent-io/KurrentDB-Client-Go/kurrentdb"

	"github.com/payauthz/payauthz/events"
)

func TestConnectionString(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		ok      bool
		address string
	}{
		{"kurrentdb_insecure", "kurrentdb://localhost:2113?tls=false", true, "localhost:2113"},
		{"esdb_with_credentials", "esdb://admin:changeit@db.example:2113?tls=true", true, "db.example:2113"},
		{"default_port", "kurrentdb://db.example?tls=false", true, "db.example:2113"},
		{"discover_cluster", "kurrentdb+discover://a:2113,b:2113,c:2113?tls=false", true, ""},
		{"esdb_discover", "esdb+discover://cluster.example:2113", true, ""},
		{"scheme_case_insensitive", "KurrentDB://localhost:2113?tls=false", true, "localhost:2113"},
		{"jetstream_word", "jetstream", false, ""},
		{"nats_url", "nats://localhost:4222", false, ""},
		{"http_url", "http://localhost:2113", false, ""},
		{"no_host", "kurrentdb://", false, ""},
		{"bad_port", "kurrentdb://localhost:port", false, ""},
		{"path_not_allowed", "kurrentdb://localhost:2113/db", false, ""},
		{"bad_setting", "kurrentdb://localhost:2113?tls=maybe", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conf, err := ParseConnectionString(c.in)
			if (err == nil) != c.ok {
				t.Fatalf("ParseConnectionString(%q) error = %v, want ok=%v", c.in, err, c.ok)
			}
			if c.ok && c.address != "" && conf.Address != c.address {
				t.Fatalf("address = %q, want %q", conf.Address, c.address)
			}
			if c.ok && !IsConnectionString(c.in) {
				t.Fatalf("IsConnectionString(%q) = false", c.in)
			}
		})
	}
}

func TestConnectionStringErrorsHidePassword(t *testing.T) {
	// Each string is refused, and the error names the problem (says) but
	// holds no part of the password (zq, s3cr3t-pw).
	cases := []struct{ name, in, says string }{
		{"bad_setting", "esdb://admin:zq-s3cr3t-pw@localhost:2113?tls=maybe", "tls"},
		{"bad_port", "esdb://admin:zq-s3cr3t-pw@localhost:port?tls=false", "port"},
		{"space_in_host", "kurrentdb://admin:zq-s3cr3t-pw@local host:2113", "host"},
		{"bad_escape_in_password", "esdb://admin:zq%zz-s3cr3t-pw@localhost:2113", "password"},
		{"slash_in_password", "esdb://admin:zq/s3cr3t-pw@localhost:2113?tls=false", "password"},
		{"unclosed_ipv6_host", "esdb://admin:zq-s3cr3t-pw@[::1:2113", "]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConnectionString(c.in)
			if err == nil {
				t.Fatalf("%s accepted", c.in)
			}
			if msg := err.Error(); strings.Contains(msg, "zq") || strings.Contains(msg, "s3cr3t-pw") || !strings.Contains(msg, c.says) {
				t.Fatalf("error = %q: it must say %q and hold no part of the password", msg, c.says)
			}
			if got := Redact(c.in); strings.Contains(got, "s3cr3t-pw") {
				t.Fatalf("Redact = %q", got)
			}
		})
	}
	if got := Redact("esdb://admin:s3cr3t-pw@localhost:2113?tls=false"); strings.Contains(got, "s3cr3t-pw") || !strings.Contains(got, "admin") {
		t.Fatalf("Redact = %q", got)
	}
	if got := Redact("kurrentdb://localhost:2113?tls=false"); got != "kurrentdb://localhost:2113?tls=false" {
		t.Fatalf("Redact without credentials changed the string: %q", got)
	}
}

func TestExpectedState(t *testing.T) {
	cases := []struct {
		name string
		in   events.Expected
		want kdb.StreamState
	}{
		{"no_stream", events.ExpectNoStream(), kdb.NoStream{}},
		{"version_zero_is_no_stream", events.ExpectVersion(0), kdb.NoStream{}},
		{"first_commit_of_one_event", events.ExpectVersion(1), kdb.Revision(0)},
		{"after_a_commit_of_three", events.ExpectVersion(4), kdb.Revision(3)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := expectedState(c.in); got != c.want {
				t.Fatalf("expectedState = %#v, want %#v", got, c.want)
			}
		})
	}
	// A Version read back is what Append expects next: the revision of the
	// commit's last event.
	for _, rev := range []uint64{0, 1, 41} {
		if got := expectedState(events.ExpectVersion(versionOf(rev))); got != kdb.Revision(rev) {
			t.Fatalf("revision %d → version %d → %#v", rev, versionOf(rev), got)
		}
	}
}

func TestStartOf(t *testing.T) {
	if _, ok := startOf(0).(kdb.Start); !ok {
		t.Fatalf("position 0 starts at %#v, want the beginning", startOf(0))
	}
	if got := startOf(1234); got != (kdb.Position{Commit: 1234, Prepare: 1234}) {
		t.Fatalf("startOf(1234) = %#v", got)
	}
	for _, p := range []events.Position{0, 1, 1 << 40} {
		if _, end := startOf(p).(kdb.End); end {
			t.Fatalf("startOf(%d) is the end of the log", p)
		}
	}
}

func TestPositionOf(t *testing.T) {
	cases := []struct {
		name string
		in   kdb.Position
		want events.Position
		ok   bool
	}{
		{"commit_position", kdb.Position{Commit: 4096, Prepare: 4096}, 4096, true},
		{"zero_is_none", kdb.Position{}, 0, false},
		{"stream_read_without_position", kdb.Position{Commit: math.MaxUint64, Prepare: math.MaxUint64}, 0, false},
		{"beyond_int64", kdb.Position{Commit: math.MaxInt64 + 1}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := positionOf(c.in)
			if got != c.want || ok != c.ok {
				t.Fatalf("positionOf(%v) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestEventID(t *testing.T) {
	u := uuid.NewString()
	if got := eventID(u); got.String() != u {
		t.Fatalf("a UUID id is not kept: %s → %s", u, got)
	}
	first, retry := eventID("same-id"), eventID("same-id") // mapped twice: once, and on a retry
	if first != retry {
		t.Fatal("a non-UUID id maps to different UUIDs on retry")
	}
	if first == eventID("other-id") {
		t.Fatal("two ids map to one UUID")
	}
	if empty, again := eventID(""), eventID(""); empty == again {
		t.Fatal("empty ids share a UUID")
	}
}

func TestStreamNames(t *testing.T) {
	cases := []struct {
		name   string
		stream string
		ok     bool
		want   string
	}{
		{"own_stream", "payauthz-dominio-1", true, "dominio-1"},
		{"own_stream_with_dots", "payauthz-x.*", true, "x.*"},
		{"other_prefix", "orders-1", false, ""},
		{"prefix_alone", "payauthz-", false, ""},
		{"system_stream", "$$payauthz-dominio-1", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := aggregateOf("payauthz-", c.stream)
			if ok != c.ok || got != c.want {
				t.Fatalf("aggregateOf(%q) = %q, %v", c.stream, got, ok)
			}
			if ok && streamName("payauthz-", got) != c.stream {
				t.Fatalf("round trip of %q gave %q", c.stream, streamName("payauthz-", got))
			}
		})
	}
}

func TestSystemEventFilter(t *testing.T) {
	cases := []struct {
		name, typ, stream string
		system            bool
	}{
		{"our_event", "CreditorEntityRegistered", "payauthz-dominio-1", false},
		{"stats", "$statsCollected", "$stats-127.0.0.1:2113", true},
		{"metadata", "$metadata", "$$payauthz-dominio-1", true},
		{"link_in_user_stream", "$>", "payauthz-dominio-1", true},
		{"user_event_in_system_stream", "Something", "$ce-payauthz", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := isSystem(c.typ, c.stream); got != c.system {
				t.Fatalf("isSystem(%q, %q) = %v", c.typ, c.stream, got)
			}
		})
	}
}

// meta builds the metadata of the i-th of n events of commit c.
func metaOf(t *testing.T, id, commit string, i, n int) []byte {
	t.Helper()
	b, err := json.Marshal(meta{ID: id, Actor: "tester", CorrelationID: "corr", Time: time.Unix(1700000000, 0).UTC(),
		Commit: commit, Index: i, Size: n})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func recorded(t *testing.T, stream string, rev, pos uint64, id, commit string, i, n int) *kdb.RecordedEvent {
	t.Helper()
	data, _ := json.Marshal(events.CreditorEntityRegistered{IDDominio: "00000000001", RagioneSociale: id})
	return &kdb.RecordedEvent{EventID: eventID(id), EventType: "CreditorEntityRegistered", StreamID: stream,
		EventNumber: rev, Position: kdb.Position{Commit: pos, Prepare: pos}, Data: data,
		UserMetadata: metaOf(t, id, commit, i, n)}
}

func TestAssemblerGroupsCommits(t *testing.T) {
	a := &assembler{prefix: "payauthz-", codec: events.DefaultCodec}
	in := []*kdb.RecordedEvent{
		recorded(t, "payauthz-dominio-1", 0, 100, "a1", "a1", 0, 1),
		{EventType: "$statsCollected", StreamID: "$stats-node", Position: kdb.Position{Commit: 150}},
		recorded(t, "orders-9", 0, 170, "o1", "o1", 0, 1),
		recorded(t, "payauthz-dominio-1", 1, 200, "a2", "a2", 0, 2),
		recorded(t, "payauthz-dominio-1", 2, 260, "a3", "a2", 1, 2),
	}
	var got []events.Envelope
	for _, r := range in {
		envs, err := a.push(r)
		if err != nil {
			t.Fatalf("push %s@%d: %v", r.StreamID, r.EventNumber, err)
		}
		got = append(got, envs...)
	}
	want := []struct {
		id          string
		pos         events.Position
		ver         events.Version
		index, size int
	}{{"a1", 100, 1, 0, 1}, {"a2", 260, 3, 0, 2}, {"a3", 260, 3, 1, 2}}
	if len(got) != len(want) {
		t.Fatalf("got %d envelopes, want %d (system and foreign events must be dropped): %+v", len(got), len(want), got)
	}
	for i, w := range want {
		e := got[i]
		if e.ID != w.id || e.Position != w.pos || e.Version != w.ver || e.Index != w.index || e.CommitSize != w.size ||
			e.Stream != "dominio-1" || e.Actor != "tester" || e.CorrelationID != "corr" || e.Time.IsZero() {
			t.Fatalf("envelope %d = %+v, want %+v", i, e, w)
		}
		if ev, ok := e.Event.(events.CreditorEntityRegistered); !ok || ev.RagioneSociale != w.id {
			t.Fatalf("envelope %d decoded to %#v", i, e.Event)
		}
	}
	if a.incomplete() {
		t.Fatal("assembler holds a commit after the last event")
	}
}

func TestAssemblerHoldsAnIncompleteCommit(t *testing.T) {
	a := &assembler{prefix: "payauthz-", codec: events.DefaultCodec}
	envs, err := a.push(recorded(t, "payauthz-p", 0, 10, "x1", "x1", 0, 2))
	if err != nil || len(envs) != 0 || !a.incomplete() {
		t.Fatalf("first of two events: %v, %v, incomplete=%v", envs, err, a.incomplete())
	}
	a.reset()
	if a.incomplete() {
		t.Fatal("reset kept the partial commit")
	}
	envs, err = a.push(recorded(t, "payauthz-p", 0, 10, "x1", "x1", 0, 2))
	if err != nil || len(envs) != 0 {
		t.Fatalf("after reset: %v, %v", envs, err)
	}
	envs, err = a.push(recorded(t, "payauthz-p", 1, 20, "x2", "x1", 1, 2))
	if err != nil || len(envs) != 2 || envs[0].Position != 20 {
		t.Fatalf("completed commit: %+v, %v", envs, err)
	}
}

func TestAssemblerFetchesTheStartOfACommitReadFromItsMiddle(t *testing.T) {
	head := []*kdb.RecordedEvent{
		recorded(t, "payauthz-p", 5, 300, "m1", "m1", 0, 3),
		recorded(t, "payauthz-p", 6, 310, "m2", "m1", 1, 3),
	}
	var asked string
	a := &assembler{prefix: "payauthz-", codec: events.DefaultCodec,
		fill: func(stream string, rev uint64, n int) ([]*kdb.RecordedEvent, error) {
			asked = fmt.Sprintf("%s@%d+%d", stream, rev, n)
			return head, nil
		}}
	envs, err := a.push(recorded(t, "payauthz-p", 7, 320, "m3", "m1", 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	if asked != "payauthz-p@5+2" {
		t.Fatalf("fetched %q, want payauthz-p@5+2", asked)
	}
	if len(envs) != 3 || envs[0].ID != "m1" || envs[2].ID != "m3" || envs[0].Position != 320 || envs[1].Version != 8 {
		t.Fatalf("rebuilt commit = %+v", envs)
	}
	// Without a way to fetch, a commit read from its middle is refused
	// rather than handed out in part.
	b := &assembler{prefix: "payauthz-", codec: events.DefaultCodec}
	if _, err := b.push(recorded(t, "payauthz-p", 7, 320, "m3", "m1", 2, 3)); !errors.Is(err, events.ErrDecode) {
		t.Fatalf("partial commit without fill: %v", err)
	}
}

func TestAssemblerRefusesBadRecords(t *testing.T) {
	good := recorded(t, "payauthz-p", 0, 10, "x1", "x1", 0, 2)
	cases := []struct {
		name string
		recs []*kdb.RecordedEvent
		want error
	}{
		{"no_metadata", []*kdb.RecordedEvent{{EventType: "CreditorEntityRegistered", StreamID: "payauthz-p", Data: []byte(`{}`)}}, events.ErrDecode},
		{"metadata_not_json", []*kdb.RecordedEvent{{EventType: "CreditorEntityRegistered", StreamID: "payauthz-p", UserMetadata: []byte("x")}}, events.ErrDecode},
		{"index_beyond_size", []*kdb.RecordedEvent{recorded(t, "payauthz-p", 0, 10, "x1", "x1", 2, 2)}, events.ErrDecode},
		{"commit_interleaved", []*kdb.RecordedEvent{good, recorded(t, "payauthz-q", 0, 20, "y1", "y1", 0, 1)}, events.ErrDecode},
		{"other_commit_in_the_middle", []*kdb.RecordedEvent{good, recorded(t, "payauthz-p", 1, 20, "z2", "z1", 1, 2)}, events.ErrDecode},
		{"revision_gap", []*kdb.RecordedEvent{good, recorded(t, "payauthz-p", 5, 20, "x2", "x1", 1, 2)}, events.ErrDecode},
		{"unknown_event", []*kdb.RecordedEvent{func() *kdb.RecordedEvent {
			r := recorded(t, "payauthz-p", 0, 10, "u1", "u1", 0, 1)
			r.EventType = "NoSuchEvent"
			return r
		}()}, events.ErrUnknownEvent},
		{"bad_payload", []*kdb.RecordedEvent{func() *kdb.RecordedEvent {
			r := recorded(t, "payauthz-p", 0, 10, "u1", "u1", 0, 1)
			r.Data = []byte(`{"idDominio":`)
			return r
		}()}, events.ErrDecode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &assembler{prefix: "payauthz-", codec: events.DefaultCodec}
			var err error
			for _, r := range c.recs {
				if _, err = a.push(r); err != nil {
					break
				}
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

func TestToEventData(t *testing.T) {
	now := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	u := uuid.NewString()
	recs := []events.Record{
		{ID: u, Event: events.CreditorEntityRegistered{IDDominio: "00000000001"}, Actor: "op", CorrelationID: "c1"},
		{ID: "retry-me", Event: events.CreditorEntityUpdated{IDDominio: "00000000001"}, Time: now.Add(-time.Hour)},
		{Event: events.CreditorEntityUpdated{IDDominio: "00000000001"}},
	}
	data, err := toEventData(events.DefaultCodec, now, recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 3 || data[0].EventID.String() != u || data[1].EventID != eventID("retry-me") ||
		data[0].EventType != "CreditorEntityRegistered" || data[0].ContentType != kdb.ContentTypeJson {
		t.Fatalf("event data = %+v", data)
	}
	var m []meta
	for _, d := range data {
		var x meta
		if err := json.Unmarshal(d.Metadata, &x); err != nil {
			t.Fatal(err)
		}
		m = append(m, x)
	}
	if m[0].Commit != u || m[1].Commit != u || m[2].Commit != u || m[2].Index != 2 || m[2].Size != 3 {
		t.Fatalf("commit metadata = %+v", m)
	}
	if !m[0].Time.Equal(now) || !m[1].Time.Equal(now.Add(-time.Hour)) || m[0].Actor != "op" || m[2].ID != data[2].EventID.String() {
		t.Fatalf("envelope metadata = %+v", m)
	}
	if _, err := toEventData(events.DefaultCodec, now, []events.Record{{Event: unknownEvent{}}}); !errors.Is(err, events.ErrUnknownEvent) {
		t.Fatalf("unknown event: %v", err)
	}
}

type unknownEvent struct{}

func (unknownEvent) EventName() string { return "NotInTheCatalogue" }
