package report

import (
	"fmt"
	"math"
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
