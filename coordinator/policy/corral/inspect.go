package corral

import (
	"fmt"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/internal/stats"
)

// Inspect prints the plan (objective, candidates, the LP lower bound
// and the plan's gap to it), each job's racks,
// priority, planned start and run time, or ad hoc, and the input bytes
// stored per rack with their CoV (§2.8), for scenario tests.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	switch {
	case p.planErr != nil:
		fmt.Fprintf(&b, "plan failed: %v\n", p.planErr)
	case p.plan != nil:
		fmt.Fprintf(&b, "plan %s objective=%.4g unpenalised=%.4g candidates=%d best=%d\n",
			p.objective, p.plan.Objective, p.plan.Unpenalised, p.plan.Candidates, p.plan.Best)
		if obj, bound, err := p.PlanBound(); err != nil {
			fmt.Fprintf(&b, "lower bound failed: %v\n", err)
		} else {
			fmt.Fprintf(&b, "lower bound %s=%.4g gap=%.1f%%\n", bound.Method, bound.Value, 100*bound.Gap(obj))
		}
	default:
		b.WriteString("plan: nothing planned\n")
	}
	for _, j := range jobs {
		jp := p.planOf(j.ID)
		if !jp.planned {
			fmt.Fprintf(&b, "%s ad hoc\n", j.Spec.ID)
			continue
		}
		racks := make([]string, len(jp.rackList))
		for i, r := range jp.rackList {
			racks[i] = fmt.Sprintf("r%d", r)
		}
		fmt.Fprintf(&b, "%s racks=%s prio=%d start=%.4g run=%.4g", j.Spec.ID, strings.Join(racks, ","), jp.priority, jp.start, jp.duration)
		if jp.fallback {
			b.WriteString(" fallback")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "stored bytes per rack %v (first replicas %v) cov=%.3f\n", p.rackBytes, p.firstBytes, stats.CoV(p.rackBytes))
	return b.String()
}
