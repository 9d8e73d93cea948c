package fidelity

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/racklab/racklab/bench/metrics"
)

type placement struct {
	id           int64
	host, source string
	start        float64
}

// loadPlacements reads each task's attempts from attempts.csv, in launch
// (id) order: their hosts, source replicas' hosts and start times.
func loadPlacements(runDir string) (map[string][]placement, error) {
	out := map[string][]placement{}
	err := eachRow(filepath.Join(runDir, "attempts.csv"), []string{"job", "stage", "task", "attempt", "host", "source_host", "start_s"}, func(get func(string) string, where string) error {
		id, err := strconv.ParseInt(get("attempt"), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: attempt %q is not an integer", where, get("attempt"))
		}
		start, err := strconv.ParseFloat(get("start_s"), 64)
		if err != nil {
			return fmt.Errorf("%s: start_s %q is not a number", where, get("start_s"))
		}
		k := get("job") + "/" + get("stage") + "/" + get("task")
		out[k] = append(out[k], placement{id: id, host: get("host"), source: get("source_host"), start: start})
		return nil
	})
	for _, ps := range out {
		sort.Slice(ps, func(a, b int) bool { return ps[a].id < ps[b].id })
	}
	return out, err
}

// PlacementCheck is how closely a replay repeated its recorded run: the
// attempts it ran on the same host reading the same replica, and how much
// later than recorded its attempts started (the median and 90th
// percentile over the attempts both have, in seconds). A replay repeats
// the order of the decisions, not their times: where the model is slower
// than the recorded run, its lag grows along the run and the replayed
// JCTs carry it.
type PlacementCheck struct {
	Same, Total    int
	LagP50, LagP90 float64
}

// String is the check as the fidelity commands print it.
func (c PlacementCheck) String() string {
	return fmt.Sprintf("replayed %d of %d attempts on their recorded host and source; start, replayed - recorded: median %+.2f s, p90 %+.2f s",
		c.Same, c.Total, c.LagP50, c.LagP90)
}

// Placements checks a replay against its recorded run: each task's n-th
// attempt against the replay's n-th. A replay that skipped or added
// attempts (timings differ: a race won earlier) matches fewer.
func Placements(recordedDir, replayDir string) (PlacementCheck, error) {
	var c PlacementCheck
	rec, err := loadPlacements(recordedDir)
	if err != nil {
		return c, err
	}
	rep, err := loadPlacements(replayDir)
	if err != nil {
		return c, err
	}
	var lags []float64
	for k, ps := range rec {
		c.Total += len(ps)
		for i, p := range ps {
			if i >= len(rep[k]) {
				continue
			}
			lags = append(lags, rep[k][i].start-p.start)
			if rep[k][i].host == p.host && rep[k][i].source == p.source {
				c.Same++
			}
		}
	}
	if len(lags) > 0 {
		// nearest-rank, as every percentile of the results (lags[n*9/10]
		// was the maximum of ten lags)
		slices.Sort(lags)
		c.LagP50, c.LagP90 = metrics.Percentile(lags, 50), metrics.Percentile(lags, 90)
	}
	return c, nil
}
