package fifo

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// Policy is the FIFO scheduler.
type Policy struct{}

// New returns a FIFO scheduler.
func New() *Policy { return &Policy{} }

// Name implements engine.Policy.
func (*Policy) Name() string { return "fifo" }

// OfferHost implements engine.HostScheduler.
func (*Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		if !launchOne(ctx, h) {
			return
		}
	}
}

func launchOne(ctx *engine.Context, h cluster.HostID) bool {
	for _, j := range ctx.Running() {
		if j.Pending == 0 {
			continue
		}
		if t, ok := ctx.NextPendingShuffle(j.ID); ok {
			_, err := ctx.Launch(t, h, engine.LaunchOptions{})
			return err == nil
		}
		if t, _, ok := ctx.PickMap(j.ID, h, engine.Remote); ok {
			_, err := ctx.Launch(t, h, engine.LaunchOptions{})
			return err == nil
		}
	}
	return false
}
