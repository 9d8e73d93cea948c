package yarnrm

import (
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
)

// A grant admits every level up to its own, and a task without locality
// whatever it is.
func TestGrantAdmits(t *testing.T) {
	for _, c := range []struct {
		grant, level engine.Locality
		want         bool
	}{
		{engine.NodeLocal, engine.NodeLocal, true},
		{engine.NodeLocal, engine.RackLocal, false},
		{engine.NodeLocal, engine.Remote, false},
		{engine.NodeLocal, engine.NoLocality, true},
		{engine.RackLocal, engine.RackLocal, true},
		{engine.RackLocal, engine.Remote, false},
		{engine.Remote, engine.Remote, true},
	} {
		if got := (Grant{Level: c.grant}).Admits(c.level); got != c.want {
			t.Errorf("grant %v admits %v: %v, want %v", c.grant, c.level, got, c.want)
		}
	}
}

// A nil gate is no gate: it grants off-switch and records nothing.
func TestNilGate(t *testing.T) {
	var g *Gate
	if got := g.Offer(nil, 0); got.Level != engine.Remote {
		t.Errorf("nil gate grants %v, want remote", got.Level)
	}
	g.Launched(0, engine.NodeLocal)
	if got := g.Missed(0); got != 0 {
		t.Errorf("nil gate missed %d, want 0", got)
	}
}

func TestCheckLocations(t *testing.T) {
	for _, s := range []string{"", Estimate, Requested} {
		if err := CheckLocations(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	if err := CheckLocations("all"); err == nil {
		t.Error(`"all" accepted`)
	}
}
