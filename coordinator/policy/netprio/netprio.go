package netprio

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// The values of a policy's network_priorities arg.
const (
	// None leaves every flow in class 0: the network shares by flow
	// (Hadoop's default, pushbox.md §4.1).
	None = "none"
	// JobFIFO ranks jobs by submission onto the classes (pushbox.md §4.2).
	JobFIFO = "job_fifo"
)

// DefaultClasses is the number of job classes, as PushBox's (§7: 4).
const DefaultClasses = 4

// Validate checks a policy's network_priorities and classes args; policy
// names the policy in the error.
func Validate(policy, mode string, classes int) error {
	if mode != None && mode != JobFIFO {
		return fmt.Errorf("%s: network_priorities %q: want %s or %s", policy, mode, None, JobFIFO)
	}
	if classes < 1 || classes > 32 {
		return fmt.Errorf("%s: classes %d: want 1 to 32", policy, classes)
	}
	return nil
}

// FIFO assigns job-FIFO classes. The zero value (or Mode None) assigns
// class 0 to everything and re-marks nothing.
type FIFO struct {
	Mode    string
	Classes int
}

// On reports whether job-FIFO priorities are in force.
func (f FIFO) On() bool { return f.Mode == JobFIFO && f.Classes > 0 }

// Class is job j's class: its rank among the running jobs by (submission
// time, id), capped at the last class.
func (f FIFO) Class(ctx *engine.Context, j engine.JobID) uint8 {
	if !f.On() {
		return 0
	}
	me := ctx.Job(j)
	rank := 0
	for _, o := range ctx.Running() {
		if o.ID != j && earlier(o, me) {
			rank++
			if rank >= f.Classes-1 {
				break
			}
		}
	}
	return uint8(min(rank, f.Classes-1))
}

func earlier(a, b *engine.Job) bool {
	if a.Submitted != b.Submitted {
		return a.Submitted < b.Submitted
	}
	return a.ID < b.ID
}

// Remark sets every running attempt's class to its job's current one.
// Call it when a job finishes.
func (f FIFO) Remark(ctx *engine.Context) {
	if !f.On() {
		return
	}
	class := make(map[engine.JobID]uint8, len(ctx.Running()))
	for _, h := range ctx.Topology().Hosts {
		f.remarkHost(ctx, h.ID, class)
	}
}

func (f FIFO) remarkHost(ctx *engine.Context, h cluster.HostID, class map[engine.JobID]uint8) {
	for _, id := range ctx.RunningOn(h) {
		a := ctx.Attempt(id)
		if a == nil {
			continue
		}
		c, ok := class[a.Task.Job]
		if !ok {
			c = f.Class(ctx, a.Task.Job)
			class[a.Task.Job] = c
		}
		if a.Priority != c {
			_ = ctx.SetPriority(id, c)
		}
	}
}
