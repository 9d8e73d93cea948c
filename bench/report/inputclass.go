package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/internal/units"
)

// InputRange is a class of jobs by input size, [Lo, Hi) bytes: the bins
// papers report by (Trident's Table 2: A is 0-128MB, F 5GB-10GB).
type InputRange struct{ Lo, Hi int64 }

// ParseInputRange reads "LO-HI" with units ("0-128MB", "5GB-10GB").
func ParseInputRange(s string) (InputRange, error) {
	lo, hi, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok {
		return InputRange{}, fmt.Errorf("input range %q: want LO-HI, e.g. 128MB-512MB", s)
	}
	var r InputRange
	var err error
	if r.Lo, err = units.ParseBytes(strings.TrimSpace(lo)); err != nil {
		return InputRange{}, fmt.Errorf("input range %q: %v", s, err)
	}
	if r.Hi, err = units.ParseBytes(strings.TrimSpace(hi)); err != nil {
		return InputRange{}, fmt.Errorf("input range %q: %v", s, err)
	}
	if r.Lo < 0 || r.Hi <= r.Lo {
		return InputRange{}, fmt.Errorf("input range %q: want 0 <= LO < HI", s)
	}
	return r, nil
}

func (r InputRange) String() string {
	return units.FormatBytes(r.Lo) + "-" + units.FormatBytes(r.Hi)
}

// Contains says whether a job of n input bytes is in the class.
func (r InputRange) Contains(n int64) bool { return n >= r.Lo && n < r.Hi }

// InputClassColumns are the summary.csv columns a headline can take over
// the jobs of an input class: the jobs' own figures (metrics.JobColumns)
// and the locality of their map attempts by level and tier.
var InputClassColumns = append(append([]string(nil), metrics.JobColumns...),
	"node_local_frac", "rack_local_frac", "remote_frac",
	"tier_mem_frac", "tier_ssd_frac", "tier_hdd_frac",
	"mem_local_frac", "ssd_local_frac", "hdd_local_frac")

// NoJobInClassError says that no job of a run has its input in the class.
type NoJobInClassError struct {
	File  string
	Class InputRange
}

func (e *NoJobInClassError) Error() string {
	return fmt.Sprintf("%s: no job has an input in %s", e.File, e.Class)
}

// LoadInputClassFigures computes the figures of InputClassColumns over
// the jobs of a run whose input is in the class: the job figures from its
// jobs.csv (which must have input_bytes: runs recorded before that column
// cannot be binned), the locality shares over the successful map
// attempts with a source replica in its attempts.csv, counted as
// summary.csv counts them over all jobs (NaN when none ran).
func LoadInputClassFigures(runDir string, class InputRange) (map[string]float64, error) {
	jobsPath := filepath.Join(runDir, "jobs.csv")
	c, err := openCSV(jobsPath, []string{"job", "state", "arrival_s", "finished_s", "input_bytes"})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var tally metrics.JobTally
	in := map[string]bool{}
	for {
		rec, line, err := c.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size, err := c.num(rec, line, "input_bytes")
		if err != nil {
			return nil, err
		}
		// a byte count: int64 of a negative, fractional or too large one
		// would put the job in a class it is not in, or in none
		if size < 0 || size != math.Trunc(size) || size >= math.MaxInt64 {
			return nil, inputErr(jobsPath, line, "column input_bytes: %s is not a byte count", c.str(rec, "input_bytes"))
		}
		if !class.Contains(int64(size)) {
			continue
		}
		if err := tallyJob(&tally, c, rec, jobsPath, line); err != nil {
			return nil, err
		}
		in[c.str(rec, "job")] = true
	}
	if tally.Jobs() == 0 {
		return nil, &NoJobInClassError{File: jobsPath, Class: class}
	}
	figures := tally.Figures()
	if err := addClassLocality(filepath.Join(runDir, "attempts.csv"), in, figures); err != nil {
		return nil, err
	}
	return figures, nil
}

// addClassLocality adds the locality shares of the class's map attempts.
func addClassLocality(path string, in map[string]bool, figures map[string]float64) error {
	c, err := openCSV(path, []string{"job", "kind", "outcome", "locality", "tier"})
	if err != nil {
		return err
	}
	defer c.Close()
	var maps float64
	byLevel := map[string]float64{}
	byTier := map[string]float64{}
	localByTier := map[string]float64{}
	for {
		rec, _, err := c.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		tier := c.str(rec, "tier")
		if !in[c.str(rec, "job")] || c.str(rec, "kind") != "map" || c.str(rec, "outcome") != "succeeded" || tier == "" {
			continue
		}
		level := c.str(rec, "locality")
		maps++
		byLevel[level]++
		byTier[tier]++
		if level == engine.NodeLocal.String() {
			localByTier[tier]++
		}
	}
	share := func(n float64) float64 {
		if maps == 0 { // no map of the class ran: no share to speak of
			return math.NaN()
		}
		return n / maps
	}
	figures["node_local_frac"] = share(byLevel[engine.NodeLocal.String()])
	figures["rack_local_frac"] = share(byLevel[engine.RackLocal.String()])
	figures["remote_frac"] = share(byLevel[engine.Remote.String()])
	for _, t := range []string{"mem", "ssd", "hdd"} {
		figures["tier_"+t+"_frac"] = share(byTier[t])
		figures[t+"_local_frac"] = share(localByTier[t])
	}
	return nil
}
