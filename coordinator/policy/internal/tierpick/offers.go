package tierpick

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// The platforms hand a task-placement rule its free slots in their own
// order (trident.md §4.3: "Slots are processed in the platform's order
// (Spark: shuffled round-robin; MR AM: container list order)"):
//
//   - OffersHeartbeat: the MR AM's, a host's free containers at its
//     heartbeat, filled one after another (engine.HostScheduler,
//     yarnrm.Heartbeats);
//   - OffersSpark: Spark's TaskScheduler, every free executor slot at once
//     (engine.RoundScheduler), the offers shuffled, then passes that give
//     each offer at most one task, until a pass launches nothing.
//
// The order matters to a per-slot rule: filled host by host, the first
// host offered takes every task it holds any replica of, whatever the
// tier; round-robin spreads a stage over the hosts first, so that more
// tasks land where their fastest replica is.
const (
	OffersHeartbeat = "heartbeat"
	OffersSpark     = "spark"
)

// CheckOffers checks an offers arg ("" is heartbeat).
func CheckOffers(s string) error {
	if s != "" && s != OffersHeartbeat && s != OffersSpark {
		return fmt.Errorf("offers %q: want heartbeat (the MR AM's containers, host by host) or spark (shuffled round-robin)", s)
	}
	return nil
}

// RoundRobin gives the free slots of a round to assign in Spark's order:
// the hosts shuffled with the run's randomness, one slot of each host a
// pass (assign fills one slot of a host and reports whether it did),
// passes repeated while one launches something.
func RoundRobin(ctx *engine.Context, free []cluster.HostID, assign func(cluster.HostID) bool) {
	offers := append([]cluster.HostID(nil), free...)
	ctx.Rand().Shuffle(len(offers), func(a, b int) { offers[a], offers[b] = offers[b], offers[a] })
	for launched := true; launched && ctx.PendingTasks() > 0; {
		launched = false
		for _, h := range offers {
			if ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 && assign(h) {
				launched = true
			}
		}
	}
}
