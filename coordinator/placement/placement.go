package placement

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/placement/octopus"
)

// Names of the placers New builds.
const (
	HDFS    = "hdfs"
	Octopus = "octopus"
)

// Names lists the placers New builds, the default first.
func Names() []string { return []string{HDFS, Octopus} }

// TierMix is the share of replicas per tier kind, indexed by
// cluster.TierKind; weights, not fractions. All zero is the placer's
// default (HDD for hdfs).
type TierMix = [cluster.NumTierKinds]float64

// New builds the placer of a name ("" is hdfs). tierMix is the hdfs
// placer's share of replicas per tier; the octopus placer puts one
// replica on each tier, so a tier mix given with it is refused rather
// than silently ignored.
func New(name string, tierMix TierMix) (engine.DatasetPlacer, error) {
	if err := CheckTierMix(tierMix); err != nil {
		return nil, err
	}
	switch name {
	case HDFS, "":
		return &hdfs.Placer{TierMix: tierMix}, nil
	case Octopus:
		if tierMix != (TierMix{}) {
			return nil, fmt.Errorf("a tier mix is a setting of the hdfs placer: octopus puts one replica on each tier")
		}
		return &octopus.Placer{}, nil
	}
	return nil, fmt.Errorf("unknown placement %q: %s", name, strings.Join(Names(), " or "))
}

// CheckTierMix says what is wrong with a tier mix, if anything: every
// share a finite number, 0 or more.
func CheckTierMix(mix TierMix) error {
	for k, x := range mix {
		if !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("tier mix: the share of %s must be a number, 0 or more (got %g)", cluster.TierKind(k), x)
		}
	}
	return nil
}

// ParseTier reads a tier name of a tier mix: the tier kinds' own names
// (mem, ssd, hdd) and "memory" for mem.
func ParseTier(s string) (cluster.TierKind, error) {
	if s == "memory" {
		return cluster.Mem, nil
	}
	k, err := cluster.ParseTierKind(s)
	if err != nil {
		return 0, fmt.Errorf("unknown tier kind %q (want memory, ssd or hdd)", s)
	}
	return k, nil
}

// ParseTierMix reads a tier mix such as "memory=1,ssd=1,hdd=1" (or
// mem=...). Shares need not add up to 1: they are weights. An empty
// string is the zero mix, the placer's default.
func ParseTierMix(s string) (TierMix, error) {
	var mix TierMix
	if strings.TrimSpace(s) == "" {
		return mix, nil
	}
	seen := map[cluster.TierKind]bool{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return mix, fmt.Errorf("tier mix %q: %q is not tier=share", s, part)
		}
		tier, err := ParseTier(strings.TrimSpace(k))
		if err != nil {
			return mix, fmt.Errorf("tier mix %q: %v", s, err)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return mix, fmt.Errorf("tier mix %q: share %q of %s must be a number, 0 or more", s, v, tier)
		}
		if seen[tier] {
			return mix, fmt.Errorf("tier mix %q: %s is given twice", s, tier)
		}
		seen[tier] = true
		mix[tier] = x
	}
	if mix == (TierMix{}) {
		return mix, fmt.Errorf("tier mix %q: the shares add up to 0", s)
	}
	return mix, nil
}
