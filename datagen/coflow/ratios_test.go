package coflow

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/datagen/swim"
)

// jobsOf makes n jobs shuffling the given bytes with input = ratio × shuffle.
func jobsOf(n int, shuffle int64, ratio float64) []swim.JobSizes {
	js := make([]swim.JobSizes, n)
	for i := range js {
		js[i] = swim.JobSizes{Input: int64(float64(shuffle) * ratio), Shuffle: shuffle}
	}
	return js
}

func TestSizeRatiosByDecade(t *testing.T) {
	var jobs []swim.JobSizes
	// decade 6 (1e6..1e7-1 B): ratios 2 (11 jobs) and 4 (10 jobs), so the
	// median is the 11th of 21 values: 2
	jobs = append(jobs, jobsOf(11, 3_000_000, 2)...)
	jobs = append(jobs, jobsOf(10, 9_999_999, 4)...)
	// decade 9: 20 jobs, half 0.5, half 1.5: median (0.5+1.5)/2 = 1
	jobs = append(jobs, jobsOf(10, 1_000_000_000, 0.5)...)
	jobs = append(jobs, jobsOf(10, 5_000_000_000, 1.5)...)
	// decade 7: too few jobs, left out
	jobs = append(jobs, jobsOf(MinDecadeJobs-1, 20_000_000, 100)...)
	// no shuffle or no input: nothing to say about the ratio
	jobs = append(jobs, jobsOf(50, 0, 3)...)
	jobs = append(jobs, swim.JobSizes{Input: 0, Shuffle: 7_000_000})
	r, err := RatiosFromJobs(jobs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		shuffle int64
		want    float64
	}{
		{1_000_000, 2}, {9_999_999, 2}, // decade 6, its bounds
		{10_000_000, 2},  // decade 7 is thin: 6 is nearer than 9
		{99_999_999, 2},  // still decade 7
		{100_000_000, 1}, // decade 8: 9 is nearer than 6
		{1, 2},           // below every decade: the lowest
		{1 << 62, 1},     // above every decade: the highest
	} {
		if got := r.Ratio(c.shuffle); got != c.want {
			t.Errorf("Ratio(%d) = %g, want %g", c.shuffle, got, c.want)
		}
	}
	if s := r.String(); !strings.Contains(s, "1e6 B: 2 (21 jobs)") || !strings.Contains(s, "1e9 B: 1 (20 jobs)") || strings.Contains(s, "1e7") {
		t.Errorf("String() = %q", s)
	}
}

func TestSizeRatiosTie(t *testing.T) {
	// decades 6 and 8 around a thin 7: the lower of two as near
	jobs := append(jobsOf(MinDecadeJobs, 1_000_000, 3), jobsOf(MinDecadeJobs, 100_000_000, 5)...)
	r, err := RatiosFromJobs(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Ratio(50_000_000); got != 3 {
		t.Errorf("Ratio in decade 7 = %g, want 3 (decade 6's)", got)
	}
}

func TestSizeRatiosErrors(t *testing.T) {
	if _, err := RatiosFromJobs(jobsOf(MinDecadeJobs-1, 1000, 2)); err == nil || !strings.Contains(err.Error(), "no decade") {
		t.Errorf("thin trace: err = %v", err)
	}
	if _, err := RatiosFromJobs(jobsOf(MinDecadeJobs, 1, 1e12)); err == nil || !strings.Contains(err.Error(), "beyond") {
		t.Errorf("ratio beyond the selectivity limit: err = %v", err)
	}
	// three decades beyond the limit: the error names the lowest, every
	// time (it named whichever a map's order gave first)
	beyond := append(append(jobsOf(MinDecadeJobs, 1, 1e12), jobsOf(MinDecadeJobs, 10, 1e12)...), jobsOf(MinDecadeJobs, 100, 1e12)...)
	for range 20 {
		if _, err := RatiosFromJobs(beyond); err == nil || !strings.Contains(err.Error(), "shuffling 1e0 to 1e1 bytes") {
			t.Fatalf("three decades beyond the limit: err = %v, want the first decade's", err)
		}
	}
	if _, err := LoadRatios(filepath.Join(t.TempDir(), "none.tsv")); err == nil {
		t.Error("a missing file loads")
	}
}

func TestDecadeOf(t *testing.T) {
	for v, want := range map[int64]int{1: 0, 9: 0, 10: 1, 99: 1, 100: 2, 999_999: 5, 1_000_000: 6, math.MaxInt64: 18} {
		if got := decadeOf(v); got != want {
			t.Errorf("decadeOf(%d) = %d, want %d", v, got, want)
		}
	}
}

// With the Facebook 2010 SWIM trace, each coflow's input is its shuffle
// times the ratio of its decade, whatever the scale, and the map stage
// still outputs exactly the shuffle.
func TestImportInputFromSWIM(t *testing.T) {
	ratios, err := LoadRatios(filepath.Join("..", "..", "traces", "swim", "FB-2010_samples_24_times_1hr_0.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	topo := uniform(t, 1, 4)
	ratioOf := map[string]float64{} // coflow → input/shuffle at scale 1
	for _, scale := range []float64{1, 0.5} {
		opts := DefaultOptions()
		opts.Scale, opts.InputRatios = scale, ratios
		_, ds, st, err := ImportStats(strings.NewReader(string(openTrace(t))), "fb", topo, opts)
		if err != nil {
			t.Fatal(err)
		}
		differs := 0
		for i, c := range st.Coflows {
			got := float64(ds.Datasets[i].Size) / float64(c.ShuffleBytes)
			if scale == 1 {
				want := ratios.Ratio(c.ShuffleBytes)
				if math.Abs(got-want) > want*1e-6 {
					t.Fatalf("coflow %s: input/shuffle %g, want %g", c.Job, got, want)
				}
				ratioOf[c.Job] = got
			} else if math.Abs(got-ratioOf[c.Job]) > ratioOf[c.Job]*1e-3 {
				// a scaled job is the same job: its ratio is the trace size's
				t.Fatalf("scale %g, coflow %s: input/shuffle %g, at scale 1 %g", scale, c.Job, got, ratioOf[c.Job])
			}
			if got != 1 {
				differs++
			}
		}
		if differs < len(st.Coflows)/2 {
			t.Errorf("scale %g: only %d of %d coflows have an input unlike their shuffle", scale, differs, len(st.Coflows))
		}
	}
}
