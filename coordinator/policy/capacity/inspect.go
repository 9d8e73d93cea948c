package capacity

import (
	"fmt"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
)

// Inspect prints each job's missed scheduling opportunities since its
// last node- or rack-local launch, for scenario tests.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	for _, j := range jobs {
		fmt.Fprintf(&b, "%s missed=%d\n", j.Spec.ID, p.gate.Missed(j.ID))
	}
	return b.String()
}
