package shufflewatcher

import (
	"fmt"
	"sort"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
)

// Inspect prints each planned job's map racks (SW-1) and, per reduce
// stage split so far, the reducers still to start per rack (SW-2) or,
// under reduce_racks=largest, the rack its reducers prefer (SW5), for
// scenario tests, with the delay-scheduling skips of a job that has any.
func (p *Policy) Inspect(jobs []*engine.Job) string {
	var b strings.Builder
	for _, j := range jobs {
		if int(j.ID) >= len(p.jobs) || !p.jobs[j.ID].planned {
			continue
		}
		s := &p.jobs[j.ID]
		var racks []string
		for r, ok := range s.mapRacks {
			if ok {
				racks = append(racks, fmt.Sprintf("r%d", r))
			}
		}
		fmt.Fprintf(&b, "%s map_racks=%s", j.Spec.ID, strings.Join(racks, ","))
		if s.skips > 0 {
			fmt.Fprintf(&b, " skips=%d", s.skips)
		}
		stages := make([]int, 0, len(s.quota))
		for st := range s.quota {
			stages = append(stages, st)
		}
		sort.Ints(stages)
		for _, st := range stages {
			fmt.Fprintf(&b, " quota[%d]=%v", st, s.quota[st])
		}
		stages = stages[:0]
		for st := range s.preferredRack {
			stages = append(stages, st)
		}
		sort.Ints(stages)
		for _, st := range stages {
			fmt.Fprintf(&b, " prefer_rack[%d]=%d", st, s.preferredRack[st])
		}
		b.WriteString("\n")
	}
	return b.String()
}
