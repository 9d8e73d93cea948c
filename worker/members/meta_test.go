package members

import (
	"io"
	"log"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/memberlist"
)

// rawMember is a memberlist member that is not an Agent, gossiping
// whatever metadata it is given, as a foreign or broken peer would.
type rawMember struct {
	mu   sync.Mutex
	meta []byte
}

func (r *rawMember) NodeMeta(int) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.meta
}
func (r *rawMember) NotifyMsg([]byte)                           {}
func (r *rawMember) GetBroadcasts(overhead, limit int) [][]byte { return nil }
func (r *rawMember) LocalState(join bool) []byte                { return nil }
func (r *rawMember) MergeRemoteState(buf []byte, join bool)     {}

func startRaw(t *testing.T, name, meta string) (*memberlist.Memberlist, *rawMember) {
	t.Helper()
	r := &rawMember{meta: []byte(meta)}
	mc := memberlist.DefaultLocalConfig()
	mc.Name, mc.BindAddr, mc.BindPort = name, "127.0.0.1", 0
	mc.ProbeInterval = 100 * time.Millisecond
	mc.Delegate = r
	mc.Logger = log.New(io.Discard, "", 0)
	list, err := memberlist.Create(mc)
	if err != nil {
		t.Fatal(err)
	}
	return list, r
}

// A peer whose metadata turns bad stops being a peer, with a Left event,
// rather than staying in Peers, stale, for ever: it used to be kept at
// its last good metadata, and its leaving, with the bad metadata, was
// ignored.
func TestPeerWhoseMetadataTurnsBadIsDropped(t *testing.T) {
	a := start(t, "r0h0", RoleWorker, "r0")
	defer a.Leave(time.Second)
	raw, r := startRaw(t, "r1h0", `{"role":"worker","rack":"r1","data":"127.0.0.1:9"}`)
	if _, err := raw.Join([]string{a.Addr()}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the raw member to be a peer", func() bool { return len(a.Peers()) == 1 }, a)
	r.mu.Lock()
	r.meta = []byte(`{"role":"worker","rack":`)
	r.mu.Unlock()
	if err := raw.UpdateNode(time.Second); err != nil {
		t.Fatal(err)
	}
	if err := raw.Leave(time.Second); err != nil {
		t.Fatal(err)
	}
	if err := raw.Shutdown(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the member with bad metadata to be dropped", func() bool { return len(a.Peers()) == 0 }, a)
}

// Metadata a peer could forge or break is refused, naming what is wrong,
// and never panics.
func TestParseMeta(t *testing.T) {
	for _, good := range []string{
		`{"role":"worker","rack":"r1","data":"10.0.0.2:7000"}`,
		`{"role":"worker","rack":"r1","data":"[::1]:7000","future":1}`,
		`{"role":"coordinator"}`,
	} {
		if _, err := parseMeta([]byte(good)); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	for _, bad := range []string{
		``, `null`, `[]`, `{"role":"worker","rack":`, `{"role":1}`,
		`{"role":"boss","rack":"r1","data":"10.0.0.2:7000"}`,
		`{"role":"worker","data":"10.0.0.2:7000"}`,
		`{"role":"worker","rack":"  ","data":"10.0.0.2:7000"}`,
		`{"role":"worker","rack":"r1"}`,
		`{"role":"worker","rack":"r1","data":"10.0.0.2"}`,
		`{"role":"worker","rack":"r1","data":"host.example:7000"}`,
		`{"role":"worker","rack":"r1","data":"10.0.0.2:0"}`,
		`{"role":"worker","rack":"r1","data":"10.0.0.2:70000"}`,
		`{"role":"worker","rack":"r1","data":"10.0.0.2:-1"}`,
		`{"role":"coordinator","data":":"}`,
	} {
		if m, err := parseMeta([]byte(bad)); err == nil {
			t.Errorf("%s: accepted as %+v", bad, m)
		} else {
			t.Logf("%s: %v", bad, err)
		}
	}
}

// Members whose metadata is not a racklab member's are not peers: they
// used to be listed, a worker without a rack or with a data address that
// is not one among them.
func TestForeignMembersAreNotPeers(t *testing.T) {
	a := start(t, "r0h0", RoleWorker, "r0")
	defer a.Leave(time.Second)
	for i, meta := range []string{
		`{"role":"worker","data":"127.0.0.1:9"}`,
		`{"role":"worker","rack":"r1","data":"nowhere"}`,
		`{"role":"king"}`,
		`not json`,
	} {
		raw, _ := startRaw(t, "bad"+strconv.Itoa(i), meta)
		defer raw.Shutdown()
		if _, err := raw.Join([]string{a.Addr()}); err != nil {
			t.Fatal(err)
		}
	}
	good, _ := startRaw(t, "r1h0", `{"role":"worker","rack":"r1","data":"127.0.0.1:9"}`)
	defer good.Shutdown()
	if _, err := good.Join([]string{a.Addr()}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the good member", func() bool { return len(a.Peers()) > 0 }, a)
	time.Sleep(300 * time.Millisecond) // gossip of the others, if any
	if ps := a.Peers(); len(ps) != 1 || ps[0].Name != "r1h0" {
		t.Fatalf("peers %+v, want r1h0 alone", ps)
	}
}

// An agent refuses to start with metadata the others would refuse.
func TestStartRefusesBadMetadata(t *testing.T) {
	for _, m := range []Meta{{Role: RoleWorker, DataAddr: "127.0.0.1:9"}, {Role: RoleWorker, Rack: "r0", DataAddr: "localhost"}, {}} {
		if a, err := Start(Config{Name: "w", Meta: m, BindAddr: "127.0.0.1"}); err == nil {
			a.Leave(0)
			t.Errorf("%+v: started", m)
		}
	}
	if a, err := Start(Config{Name: "w", Meta: Meta{Role: RoleCoordinator}, BindAddr: "127.0.0.1", ProbeInterval: -time.Second}); err == nil {
		a.Leave(0)
		t.Error("a negative probe interval was accepted")
	}
}

// Leave twice does not panic (memberlist's does), and a member that has
// left says so rather than pretend to join or send.
func TestAfterLeave(t *testing.T) {
	a := start(t, "r0h0", RoleWorker, "r0")
	b := start(t, "r1h0", RoleWorker, "r1")
	defer b.Leave(time.Second)
	if err := a.Join([]string{b.Addr()}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a and b to see each other", func() bool { return len(a.Peers()) == 1 && len(b.Peers()) == 1 }, a, b)
	if err := a.Leave(time.Second); err != nil {
		t.Fatal(err)
	}
	if err := a.Leave(time.Second); err != nil {
		t.Fatalf("second leave: %v", err)
	}
	if err := a.Join([]string{b.Addr()}); err == nil {
		t.Error("a member that left joined")
	}
	if err := a.Send([]byte("x"), nil); err == nil {
		t.Error("a member that left sent")
	}
}

// A worker that crashed and restarts under its name, on another port, is
// a peer again as soon as it joins: it used to be refused as a conflict
// until memberlist forgot its dead self (16 s).
func TestRestartedMemberRejoins(t *testing.T) {
	coord := start(t, "coordinator", RoleCoordinator, "")
	defer coord.Leave(time.Second)
	w1 := start(t, "r0h0", RoleWorker, "r0")
	defer w1.Leave(time.Second)
	w2 := start(t, "r1h0", RoleWorker, "r1")
	for _, a := range []*Agent{w1, w2} {
		if err := a.Join([]string{coord.Addr()}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "every member to see the others", func() bool { return len(coord.Peers()) == 2 && len(w1.Peers()) == 2 }, coord, w1)
	if err := w2.list.Shutdown(); err != nil { // a crash
		t.Fatal(err)
	}
	waitFor(t, "the crash to be noticed", func() bool { return len(coord.Peers()) == 1 && len(w1.Peers()) == 1 }, coord, w1)
	again := start(t, "r1h0", RoleWorker, "r1")
	defer again.Leave(time.Second)
	if err := again.Join([]string{coord.Addr()}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the restarted member to be a peer again", func() bool {
		return len(coord.Peers()) == 2 && len(w1.Peers()) == 2 && len(again.Peers()) == 2
	}, coord, w1, again)
	for _, p := range coord.Peers() {
		if p.Name == "r1h0" && p.Addr != again.Addr() {
			t.Errorf("the coordinator sees r1h0 at %s, want %s", p.Addr, again.Addr())
		}
	}
}

func TestEventKindString(t *testing.T) {
	if s := EventKind(7).String(); s != "event(7)" {
		t.Errorf("got %q", s)
	}
	if s := Left.String(); s != "left" {
		t.Errorf("got %q", s)
	}
}
