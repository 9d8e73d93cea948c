package coflow

import (
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/datagen/swim"
)

// MinDecadeJobs is how many production jobs a decade of shuffle sizes
// needs for its median ratio to be used; a coflow in a thinner decade
// takes the nearest decade that has them.
const MinDecadeJobs = 20

// SizeRatios give a job's map input bytes per shuffle byte by the size of
// its shuffle, as production jobs of that size had them. PushBox's
// simulation (pushbox.md §5.2) synthesises the mappers the coflow trace
// lacks "according to shuffle size and input/output data ratios" of
// measured production data (its refs. 44, 45: Chen et al.'s SWIM traces of
// Facebook's clusters, traces/swim/). It does not say how; here each
// decade of shuffle bytes, [10^k, 10^(k+1)), takes the median input/shuffle
// ratio of the trace's jobs in it (the median, since single jobs range over
// nine orders of magnitude: a scan that shuffles a few bytes).
type SizeRatios struct {
	decades []decadeRatio // ascending by decade, each of MinDecadeJobs jobs or more
}

type decadeRatio struct {
	decade int
	ratio  float64
	jobs   int
}

// RatiosFromJobs builds the ratios of production jobs; jobs without input
// or without shuffle say nothing about the ratio and are left out.
func RatiosFromJobs(jobs []swim.JobSizes) (*SizeRatios, error) {
	byDecade := map[int][]float64{}
	for _, j := range jobs {
		if j.Input > 0 && j.Shuffle > 0 {
			k := decadeOf(j.Shuffle)
			byDecade[k] = append(byDecade[k], float64(j.Input)/float64(j.Shuffle))
		}
	}
	r := &SizeRatios{}
	// decades in order, so that an error names the same one every run
	for _, k := range slices.Sorted(maps.Keys(byDecade)) {
		v := byDecade[k]
		if len(v) < MinDecadeJobs {
			continue
		}
		slices.Sort(v)
		med := v[len(v)/2]
		if len(v)%2 == 0 {
			med = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		if med > workload.MaxSelectivity || 1/med > workload.MaxSelectivity {
			return nil, fmt.Errorf("the median input/shuffle ratio of the jobs shuffling 1e%d to 1e%d bytes, %g, is beyond %g either way",
				k, k+1, med, float64(workload.MaxSelectivity))
		}
		r.decades = append(r.decades, decadeRatio{decade: k, ratio: med, jobs: len(v)})
	}
	if len(r.decades) == 0 {
		return nil, fmt.Errorf("no decade of shuffle sizes has %d jobs with both input and shuffle", MinDecadeJobs)
	}
	slices.SortFunc(r.decades, func(a, b decadeRatio) int { return a.decade - b.decade })
	return r, nil
}

// Ratio is the input/shuffle ratio for a job that shuffles the given
// bytes (at least 1): its decade's, or the nearest decade's (the lower of
// two as near).
func (r *SizeRatios) Ratio(shuffle int64) float64 {
	k := decadeOf(max(shuffle, 1))
	best := r.decades[0]
	for _, d := range r.decades[1:] {
		if abs(d.decade-k) < abs(best.decade-k) {
			best = d
		}
	}
	return best.ratio
}

// String lists the decades' ratios, for logs and the import's summary.
func (r *SizeRatios) String() string {
	s := ""
	for i, d := range r.decades {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("1e%d B: %.3g (%d jobs)", d.decade, d.ratio, d.jobs)
	}
	return s
}

// decadeOf is ⌊log10 v⌋ for v ≥ 1, in integers (no rounding at powers of
// ten).
func decadeOf(v int64) int {
	k := 0
	for v >= 10 {
		v /= 10
		k++
	}
	return k
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// LoadRatios reads the ratios of the jobs of a SWIM trace file.
func LoadRatios(path string) (*SizeRatios, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	jobs, err := swim.ReadSizes(f, path)
	if err != nil {
		return nil, err
	}
	r, err := RatiosFromJobs(jobs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
