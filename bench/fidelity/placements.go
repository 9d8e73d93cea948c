package fidelity

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
)

type placement struct {
	id           int64
	host, source string
}

// loadPlacements reads each task's attempts from attempts.csv, in launch
// (id) order: their hosts and source replicas' hosts.
func loadPlacements(runDir string) (map[string][]placement, error) {
	out := map[string][]placement{}
	err := eachRow(filepath.Join(runDir, "attempts.csv"), []string{"job", "stage", "task", "attempt", "host", "source_host"}, func(get func(string) string, where string) error {
		id, err := strconv.ParseInt(get("attempt"), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: attempt %q is not an integer", where, get("attempt"))
		}
		k := get("job") + "/" + get("stage") + "/" + get("task")
		out[k] = append(out[k], placement{id: id, host: get("host"), source: get("source_host")})
		return nil
	})
	for _, ps := range out {
		sort.Slice(ps, func(a, b int) bool { return ps[a].id < ps[b].id })
	}
	return out, err
}

// Placements counts the attempts of a recorded run that its replay ran
// on the same host reading the same replica: each task's n-th attempt
// against the replay's n-th. A replay that skipped or added attempts
// (timings differ: a race won earlier) matches fewer.
func Placements(recordedDir, replayDir string) (same, total int, err error) {
	rec, err := loadPlacements(recordedDir)
	if err != nil {
		return 0, 0, err
	}
	rep, err := loadPlacements(replayDir)
	if err != nil {
		return 0, 0, err
	}
	for k, ps := range rec {
		total += len(ps)
		for i, p := range ps {
			if i < len(rep[k]) && rep[k][i].host == p.host && rep[k][i].source == p.source {
				same++
			}
		}
	}
	return same, total, nil
}
