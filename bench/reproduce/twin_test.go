package reproduce

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/sim"
)

// Every campaign's twin runs its local run sets, and only them, in the
// simulator: the same names, clusters, workloads, policies, repetitions
// and seeds; its text parses again to the same runs.
func TestTwinOfEveryCampaign(t *testing.T) {
	paths, err := filepath.Glob("../../campaigns/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no campaigns: %v", err)
	}
	twins := 0
	for _, path := range paths {
		c, err := campaign.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		tw, err := Twin(c)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		var local []campaign.RunSet
		for _, rs := range c.Runs {
			if rs.Mode == campaign.ModeLocal {
				local = append(local, rs)
			}
		}
		if len(local) == 0 {
			if tw != nil {
				t.Errorf("%s has no local runs but a twin", path)
			}
			continue
		}
		twins++
		if tw == nil || len(tw.Runs) != len(local) {
			t.Errorf("%s: twin %v for %d local run sets", path, tw, len(local))
			continue
		}
		if tw.Name != c.Name+"-twin" || tw.Headlines != nil || len(tw.Sweeps) != 0 || tw.Seed != c.Seed || tw.Background != c.Background {
			t.Errorf("%s: twin %s, headlines %v, %d sweeps, seed %d, background %g", path, tw.Name, tw.Headlines != nil, len(tw.Sweeps), tw.Seed, tw.Background)
		}
		for i, rs := range tw.Runs {
			l := local[i]
			if rs.Mode != campaign.ModeSim || rs.Name != l.Name || rs.Network != sim.NetworkMaxMin || rs.FullRecompute != -1 {
				t.Errorf("%s: twin run set %d: mode %s name %q network %s full_recompute %g", path, i, rs.Mode, rs.Name, rs.Network, rs.FullRecompute)
			}
			if !reflect.DeepEqual(rs.Uniform, l.Uniform) || !reflect.DeepEqual(rs.Policies, l.Policies) || !reflect.DeepEqual(rs.Workloads, l.Workloads) ||
				rs.Repetitions != l.Repetitions || rs.Resolution != l.Resolution || rs.Placement != l.Placement || rs.MemoryLRU != l.MemoryLRU || !reflect.DeepEqual(rs.TierMix, l.TierMix) {
				t.Errorf("%s: twin run set %d differs from its local one:\n%+v\n%+v", path, i, rs, l)
			}
			if !reflect.DeepEqual(tw.Seeds(rs), c.Seeds(l)) {
				t.Errorf("%s: seeds %v, local %v", path, tw.Seeds(rs), c.Seeds(l))
			}
		}
		if !reflect.DeepEqual(tw.Workloads, c.Workloads) || tw.Path != c.Path {
			t.Errorf("%s: the twin's workloads or path differ", path)
		}
		if !strings.Contains(string(tw.Source), "simulated twin") {
			t.Errorf("%s: the twin's text does not say what it is:\n%s", path, tw.Source)
		}
		again, err := campaign.Parse("twin.yaml", tw.Source)
		if err != nil {
			t.Errorf("%s: the twin's text: %v", path, err)
		} else if !reflect.DeepEqual(again.Runs, tw.Runs) {
			t.Errorf("%s: the twin's text parses to other runs", path)
		}
	}
	if twins < 5 {
		t.Errorf("%d campaigns with local runs, want the five papers'", twins)
	}
}

func TestTwinOfSimOnlyCampaign(t *testing.T) {
	tw, err := Twin(parseCampaign(t, campaignText))
	if err != nil || tw != nil {
		t.Errorf("twin of a campaign with no local runs: %v, %v", tw, err)
	}
}
