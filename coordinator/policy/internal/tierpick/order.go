package tierpick

import (
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/fair"
)

// JobOrder appends to buf[:0] the running jobs with pending tasks in the
// platform's inter-job order, the baselines' arg order: "fifo" (by
// submission: the Capacity Scheduler's default queue, Spark's default
// mode) or "fair" (fair.Order: the fewest running tasks first).
func JobOrder(ctx *engine.Context, order string, buf []*engine.Job) []*engine.Job {
	if order == "fair" {
		return fair.Order(ctx, buf)
	}
	buf = buf[:0]
	for _, j := range ctx.Running() {
		if j.Pending > 0 {
			buf = append(buf, j)
		}
	}
	return buf
}
