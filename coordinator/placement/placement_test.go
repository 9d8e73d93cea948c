package placement

import (
	"math"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/placement/octopus"
)

func TestNew(t *testing.T) {
	mix := TierMix{1, 2, 3}
	p, err := New("hdfs", mix)
	if h, ok := p.(*hdfs.Placer); err != nil || !ok || h.TierMix != mix {
		t.Fatalf("hdfs: %T %+v %v", p, p, err)
	}
	if p, err := New("", TierMix{}); err != nil {
		t.Fatalf("default: %v", err)
	} else if _, ok := p.(*hdfs.Placer); !ok {
		t.Fatalf("default: %T, want hdfs", p)
	}
	if p, err := New("octopus", TierMix{}); err != nil {
		t.Fatalf("octopus: %v", err)
	} else if _, ok := p.(*octopus.Placer); !ok {
		t.Fatalf("octopus: %T", p)
	}
	for _, tc := range []struct {
		name string
		mix  TierMix
		want string
	}{
		{"ceph", TierMix{}, `unknown placement "ceph": hdfs or octopus`},
		{"octopus", TierMix{1, 0, 0}, "a tier mix is a setting of the hdfs placer"},
		{"hdfs", TierMix{0, -1, 0}, "the share of ssd must be a number, 0 or more (got -1)"},
		{"hdfs", TierMix{math.NaN(), 0, 0}, "the share of mem"},
		{"hdfs", TierMix{0, 0, math.Inf(1)}, "the share of hdd"},
	} {
		if _, err := New(tc.name, tc.mix); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", tc.name, tc.mix, err, tc.want)
		}
	}
}

func TestParseTierMix(t *testing.T) {
	for _, s := range []string{"memory=1,ssd=2,hdd=3", " mem=1, ssd=2 ,hdd = 3"} {
		if mix, err := ParseTierMix(s); err != nil || mix != (TierMix{1, 2, 3}) {
			t.Errorf("%q: %v %v", s, mix, err)
		}
	}
	if mix, err := ParseTierMix(""); err != nil || mix != (TierMix{}) {
		t.Errorf("empty: %v %v", mix, err)
	}
	for _, tc := range []struct{ s, want string }{
		{"mem=0.1,flash=0.9", `tier mix "mem=0.1,flash=0.9": unknown tier kind "flash" (want memory, ssd or hdd)`},
		{"mem", `"mem" is not tier=share`},
		{"mem=x", `share "x" of mem must be a number, 0 or more`},
		{"mem=-1", `share "-1" of mem`},
		{"mem=1,memory=2", "mem is given twice"},
		{"mem=0,hdd=0", "the shares add up to 0"},
	} {
		if _, err := ParseTierMix(tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.s, err, tc.want)
		}
	}
	if k, err := ParseTier("memory"); err != nil || k != cluster.Mem {
		t.Errorf("memory: %v %v", k, err)
	}
}
