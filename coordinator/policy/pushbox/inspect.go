package pushbox

import (
	"fmt"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
)

// Inspect prints, per machine with input-phase tasks, its backlog R, B̂
// and dataTransferTime, and its tasks in rank order with their class;
// then the jobs' delay-scheduling skips, for scenario tests. It reads
// the state as of the last decision (B̂ takes no new measurement here).
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	for h := range p.hosts {
		hs := &p.hosts[h]
		if len(hs.inputs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "h%d input_phase=%d bhat=%.4g\n", h, len(hs.inputs), hs.bhat)
		for _, it := range hs.inputs {
			fmt.Fprintf(&b, "  a%d %s/%d/%d seq=%d coflow=%.4g lowest=%t\n", it.id, jobs[it.task.Job].Spec.ID, it.task.Stage, it.task.Index, it.seq, it.coflow, it.lowest)
		}
	}
	for i, s := range p.skips {
		if s > 0 && i < len(jobs) {
			fmt.Fprintf(&b, "skips %s=%d\n", jobs[i].Spec.ID, s)
		}
	}
	return b.String()
}
