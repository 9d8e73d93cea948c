package fifo

import (
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/netprio"
)

// Config is the policy's args.
type Config struct {
	// NetworkPriorities is "none" (Hadoop: every flow in one class, the
	// network shares by flow, pushbox.md §4.1) or "job_fifo" (Hadoop(FIFO),
	// §4.2: the earliest submitted running job's flows first).
	NetworkPriorities string `yaml:"network_priorities"`
	// Classes is the number of job classes under job_fifo (4, PushBox's);
	// the jobs beyond the last class share it.
	Classes int `yaml:"classes"`
}

// DefaultConfig is Hadoop's FIFO scheduler, without network priorities.
func DefaultConfig() Config {
	return Config{NetworkPriorities: netprio.None, Classes: netprio.DefaultClasses}
}

// Validate checks the args' values.
func (c Config) Validate() error {
	return netprio.Validate("fifo", c.NetworkPriorities, c.Classes)
}

// Policy is the FIFO scheduler. Its zero value is plain Hadoop FIFO.
type Policy struct {
	net netprio.FIFO
}

// New returns a FIFO scheduler with the given args.
func New(cfg Config) *Policy {
	return &Policy{net: netprio.FIFO{Mode: cfg.NetworkPriorities, Classes: cfg.Classes}}
}

// Name implements engine.Policy.
func (*Policy) Name() string { return "fifo" }

// OfferHost implements engine.HostScheduler.
func (p *Policy) OfferHost(ctx *engine.Context, h cluster.HostID) {
	for ctx.FreeSlots(h) > 0 && ctx.PendingTasks() > 0 {
		if !p.launchOne(ctx, h) {
			return
		}
	}
}

// JobFinished moves the later jobs' flows up a class under job_fifo.
func (p *Policy) JobFinished(ctx *engine.Context, _ engine.JobID) {
	p.net.Remark(ctx)
}

func (p *Policy) launchOne(ctx *engine.Context, h cluster.HostID) bool {
	for _, j := range ctx.Running() {
		if j.Pending == 0 {
			continue
		}
		opt := engine.LaunchOptions{Priority: p.net.Class(ctx, j.ID)}
		if t, ok := ctx.NextPendingShuffle(j.ID); ok {
			_, err := ctx.Launch(t, h, opt)
			return err == nil
		}
		if t, _, ok := ctx.PickMap(j.ID, h, engine.Remote); ok {
			_, err := ctx.Launch(t, h, opt)
			return err == nil
		}
	}
	return false
}
