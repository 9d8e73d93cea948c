package policytest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
)

var taskStateNames = [...]string{
	engine.TaskBlocked: "blocked",
	engine.TaskPending: "pending",
	engine.TaskRunning: "running",
	engine.TaskDone:    "done",
}

// show prints engine or policy state without changing it.
func (s *scenario) show(cmd string, a *args) (string, error) {
	if err := s.built(cmd, true); err != nil {
		return "", err
	}
	var only []string
	if cmd == "jobs" || cmd == "tasks" {
		only = a.list("job")
	}
	// attempts source=1 also names the replica each map attempt reads
	withSource := cmd == "attempts" && a.int("source", 0) != 0
	if err := a.done(); err != nil {
		return "", err
	}
	jobs := s.eng.Jobs()
	if only != nil {
		jobs = nil
		for _, name := range only {
			j, err := s.jobByName(name)
			if err != nil {
				return "", fmt.Errorf("%s: %v", cmd, err)
			}
			jobs = append(jobs, j)
		}
	}
	var b strings.Builder
	switch cmd {
	case "jobs":
		// jobs [job=j,k]: state and counts of each job
		for _, j := range jobs {
			fmt.Fprintf(&b, "%s %s queue=%s running=%d pending=%d done=%d/%d attempts=%d",
				j.Spec.ID, j.State, s.eng.Queues()[j.Queue].Name, j.Running, j.Pending, j.TasksDone, j.Tasks, j.Attempts)
			if j.Reason != "" {
				fmt.Fprintf(&b, " reason=%q", j.Reason)
			}
			b.WriteByte('\n')
		}
	case "tasks":
		// tasks [job=j]: one line per task, with its running attempts
		for _, j := range jobs {
			for si, st := range j.Stages {
				for ti := range st.Tasks {
					t := &st.Tasks[ti]
					fmt.Fprintf(&b, "%s/%d/%d %s", j.Spec.ID, si, ti, taskStateNames[t.State])
					for _, id := range t.Running() {
						if at := s.eng.Attempt(id); at != nil {
							fmt.Fprintf(&b, " a%d@%s", id, s.hostLabel(at.Host))
						}
					}
					if t.State == engine.TaskDone {
						fmt.Fprintf(&b, " by a%d output@%s", t.OutAttempt, s.hostLabel(t.OutHost))
					}
					b.WriteByte('\n')
				}
			}
		}
	case "attempts":
		// attempts: the running attempts in launch order
		for _, id := range s.launched {
			at := s.eng.Attempt(id)
			if at == nil {
				continue
			}
			fmt.Fprintf(&b, "a%d %s on %s locality=%s prio=%d", id, s.taskLabel(at.Task), s.hostLabel(at.Host), at.Locality, at.Priority)
			if withSource && at.Source.Host >= 0 {
				fmt.Fprintf(&b, " source=%s/%s", s.hostLabel(at.Source.Host), at.Source.Tier)
			}
			if !at.Note.IsZero() {
				// what the policy acted on (engine.DecisionNote)
				fmt.Fprintf(&b, " network=%s reason=%s", at.Note.Saturation, at.Note.Reason)
			}
			b.WriteByte('\n')
		}
	case "queues":
		for _, q := range s.eng.Queues() {
			fmt.Fprintf(&b, "%s running=%d capacity=%g max_capacity=%g weight=%g ordering=%s\n", q.Name, q.Running, q.Capacity, q.MaxCapacity, q.Weight, q.Ordering)
		}
	case "stats":
		st := &s.eng.Stats
		fmt.Fprintf(&b, "decisions=%d launches=%d duplicates=%d duplicates_used=%d rejected=%d hosts_lost=%d recomputed=%d\n",
			st.Decisions, st.Launches, st.Duplicates, st.DuplicatesUsed, st.Rejected, st.HostsLost, st.Recomputed)
		var reasons []string
		for r := range st.RejectedByReason {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		for _, r := range reasons {
			fmt.Fprintf(&b, "rejected %q: %d\n", r, st.RejectedByReason[r])
		}
	case "inspect":
		in, ok := s.policy.(Inspector)
		if !ok {
			return "", fmt.Errorf("inspect: policy %s does not implement policytest.Inspector (Inspect(jobs []*engine.Job) string)", s.policy.Name())
		}
		b.WriteString(in.Inspect(s.eng.Jobs()))
	}
	if b.Len() == 0 {
		return "(none)", nil
	}
	return b.String(), nil
}
