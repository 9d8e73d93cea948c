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
