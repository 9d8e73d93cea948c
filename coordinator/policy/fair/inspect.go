package fair

import (
	"fmt"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
)

// Inspect prints each job's skip count (the opportunities it has declined
// since its last node-local launch), for scenario tests.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	for _, j := range jobs {
		fmt.Fprintf(&b, "%s skips=%d\n", j.Spec.ID, p.Skips(j.ID))
	}
	return b.String()
}
