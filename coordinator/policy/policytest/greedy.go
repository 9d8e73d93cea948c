package policytest

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// Greedy is a toy policy for testing drivers and the harness: it fills
// every offered slot with the first runnable task it finds, oldest job
// first, reduces before maps, and a map no farther from its input than
// Farthest (NodeLocal, the zero value, tells a test where map outputs
// will be). It counts its offers for `inspect`.
type Greedy struct {
	Farthest engine.Locality
	Offers   int
}

// Name implements engine.Policy.
func (*Greedy) Name() string { return "greedy" }

// OfferHost implements engine.HostScheduler.
func (g *Greedy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	g.Offers++
	for ctx.FreeSlots(h) > 0 {
		launched := false
		for _, j := range ctx.Running() {
			t, ok := ctx.NextPendingShuffle(j.ID)
			if !ok {
				t, _, ok = ctx.PickMap(j.ID, h, g.Farthest)
			}
			if ok {
				if _, err := ctx.Launch(t, h, engine.LaunchOptions{}); err == nil {
					launched = true
					break
				}
			}
		}
		if !launched {
			return
		}
	}
}

// Inspect implements Inspector.
func (g *Greedy) Inspect([]*engine.Job) string { return fmt.Sprintf("offers=%d\n", g.Offers) }
