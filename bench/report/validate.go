package report

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// mayBeInfinite are the summary.csv columns where +Inf is a value, not a
// fault: metrics.Skew gives +Inf when the least loaded rack link carried
// nothing and another did. No column may hold NaN or -Inf, and no other
// column +Inf: a record with one is broken, and a mean over it would be
// meaningless. Shadow's Skew columns (rack_link_skew, shuffle_skew_mean)
// leave idle links out, so they are finite, or empty when unknown.
var mayBeInfinite = map[string]bool{"link_skew": true}

// checkFinite refuses a non-finite number in column name of a record
// file, naming the file, the line and the column.
func (c *csvFile) checkFinite(line int, name string, x float64) error {
	if !math.IsNaN(x) && !math.IsInf(x, 0) || math.IsInf(x, 1) && mayBeInfinite[name] {
		return nil
	}
	return inputErr(c.path, line, "column %d (%s): %v is not a finite number", c.col[name]+1, name, x)
}

// Partial says that a campaign's report holds fewer runs than the
// campaign plans: "partial: N of M runs done"; "" when it holds them all
// or the plan is unknown.
func (r *Report) Partial() string {
	done := 0
	for _, m := range r.Modes {
		done += len(m.Set.Runs)
	}
	if r.PlannedRuns <= 0 || done >= r.PlannedRuns {
		return ""
	}
	return fmt.Sprintf("partial: %d of %d runs done", done, r.PlannedRuns)
}

// Unfinished names the campaign's result sets with no finished run yet:
// "no run finished yet in sim, local"; "" when every set has one.
func (r *Report) Unfinished() string {
	if len(r.NotStarted) == 0 {
		return ""
	}
	return "no run finished yet in " + strings.Join(r.NotStarted, ", ")
}

// LostHosts names the runs that lost a host (summary.csv's hosts_lost: a
// worker that stopped heartbeating), whose figures include the reruns of
// the lost attempts and so differ from a clean repetition's: "runs that
// lost hosts (their figures include the reruns): local/fair-seed1 (1
// host)"; "" when none did.
func (r *Report) LostHosts() string {
	var runs []string
	for _, m := range r.Modes {
		for _, run := range m.Set.Runs {
			n := run.Values["hosts_lost"]
			if !(n > 0) { // NaN (a summary.csv older than the column) too
				continue
			}
			id, err := filepath.Rel(r.Dir, run.Dir)
			if err != nil {
				id = run.Dir
			}
			unit := "hosts"
			if n == 1 {
				unit = "host"
			}
			runs = append(runs, fmt.Sprintf("%s (%g %s)", filepath.ToSlash(id), n, unit))
		}
	}
	if len(runs) == 0 {
		return ""
	}
	return "runs that lost hosts (their figures include the reruns; events.jsonl says which and when): " + strings.Join(runs, ", ")
}
