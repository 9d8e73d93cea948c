package members

import (
	"testing"
	"time"
)

func start(t *testing.T, name, role, rack string) *Agent {
	t.Helper()
	a, err := Start(Config{Name: name, Meta: Meta{Role: role, Rack: rack, DataAddr: "127.0.0.1:9"}, BindAddr: "127.0.0.1", ProbeInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func waitFor(t *testing.T, what string, cond func() bool, agents ...*Agent) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			for _, a := range agents {
				t.Logf("%s sees %v", a.name, a.Peers())
				for len(a.events) > 0 {
					ev := <-a.events
					t.Logf("  %s %s", ev.Kind, ev.Peer.Name)
				}
			}
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRacksFormAndDeathIsNoticed(t *testing.T) {
	coord := start(t, "coordinator", RoleCoordinator, "")
	defer coord.Leave(time.Second)
	w1 := start(t, "r0h0", RoleWorker, "r0")
	defer w1.Leave(time.Second)
	w2 := start(t, "r1h0", RoleWorker, "r1")
	if err := w1.Join([]string{coord.Addr()}); err != nil {
		t.Fatal(err)
	}
	if err := w2.Join([]string{coord.Addr()}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every member to see the others", func() bool {
		return len(coord.Peers()) == 2 && len(w1.Peers()) == 2 && len(w2.Peers()) == 2
	}, coord, w1, w2)
	t.Log(coord.Peers(), w1.Peers(), w2.Peers())
	for _, p := range w1.Peers() {
		if p.Name == "r1h0" && (p.Rack != "r1" || p.Role != RoleWorker || p.DataIP().String() != "127.0.0.1") {
			t.Fatalf("w1 sees r1h0 as %+v", p)
		}
	}
	// a crash, not a graceful leave: stop gossiping without a goodbye
	if err := w2.list.Shutdown(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitFor(t, "the dead member to be noticed by both survivors", func() bool {
		return len(coord.Peers()) == 1 && len(w1.Peers()) == 1
	})
	t.Logf("death noticed after %v", time.Since(start))
	var sawLeft bool
	for len(coord.Events()) > 0 {
		if ev := <-coord.Events(); ev.Kind == Left && ev.Peer.Name == "r1h0" {
			sawLeft = true
		}
	}
	if !sawLeft {
		t.Fatal("the coordinator got no Left event for the dead worker")
	}
}

// Send reaches every selected member directly, small messages by UDP and
// large ones by TCP; members not selected hear nothing.
func TestSendReachesSelectedMembers(t *testing.T) {
	coord := start(t, "coordinator", RoleCoordinator, "")
	defer coord.Leave(time.Second)
	var agents []*Agent
	got := make([]chan []byte, 3)
	for i, name := range []string{"r0h0", "r0h1", "r1h0"} {
		a := start(t, name, RoleWorker, "r"+name[1:2])
		defer a.Leave(time.Second)
		if err := a.Join([]string{coord.Addr()}); err != nil {
			t.Fatal(err)
		}
		got[i] = make(chan []byte, 16)
		a.OnMessage(func(b []byte) { got[i] <- b })
		agents = append(agents, a)
	}
	heard := make(chan []byte, 16)
	coord.OnMessage(func(b []byte) { heard <- b })
	waitFor(t, "every member to see the others", func() bool {
		return len(agents[0].Peers()) == 3 && len(coord.Peers()) == 3
	}, agents...)
	workers := func(p Peer) bool { return p.Role == RoleWorker }
	large := make([]byte, 3*maxDatagram)
	for i := range large {
		large[i] = byte('a' + i%26)
	}
	for _, msg := range [][]byte{[]byte("demand"), large} {
		if err := agents[0].Send(msg, workers); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < 3; i++ {
			select {
			case b := <-got[i]:
				if string(b) != string(msg) {
					t.Errorf("%s got %d bytes, want the %d sent", agents[i].name, len(b), len(msg))
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s got nothing", agents[i].name)
			}
		}
	}
	select {
	case b := <-got[0]:
		t.Errorf("the sender got its own message %q", b[:min(len(b), 10)])
	case b := <-heard:
		t.Errorf("the coordinator, not selected, got %q", b[:min(len(b), 10)])
	case <-time.After(200 * time.Millisecond):
	}
}
