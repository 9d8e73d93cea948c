package neat

import (
	"fmt"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
)

// Inspect prints, per receiving host, the flows the predictor reads, in
// placement order: attempt, task, remote bytes and predicted end, for
// scenario tests.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	for h, hs := range p.byHost {
		for _, f := range hs {
			fmt.Fprintf(&b, "h%d a%d %s/%d remote=%.4g end=%.4g\n", h, f.id, jobs[f.coflow.job].Spec.ID, f.coflow.stage, f.remote, f.end)
		}
	}
	if b.Len() == 0 {
		return "no flows\n"
	}
	return b.String()
}
