package sim

import (
	"bytes"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/placement/hdfs"
	"github.com/racklab/racklab/coordinator/policy"
)

// Sampling the links is a measurement: how often it happens changes no
// decision and no record but the samples themselves.
func TestSamplingDoesNotPerturbTheRun(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		records := func(period float64) (string, int) {
			topo, w, ds := randomCase(seed)
			p, err := policy.New("fair") // delay scheduling: sensitive to every offer
			if err != nil {
				t.Fatal(err)
			}
			eng, err := engine.New(engine.Config{Seed: seed, Placer: &hdfs.Placer{}}, topo, w, ds, p)
			if err != nil {
				t.Fatal(err)
			}
			sink := &checkingSink{t: t}
			if _, err := New(eng, Options{Sink: sink, Sample: period, MaxSimTime: 1e7}).Run(); err != nil {
				t.Fatal(err)
			}
			var kept bytes.Buffer
			samples := 0
			for _, line := range strings.SplitAfter(sink.buf.String(), "\n") {
				if strings.HasPrefix(line, "l ") {
					samples++
					continue
				}
				kept.WriteString(line)
			}
			return kept.String(), samples
		}
		fine, nFine := records(0.1)
		coarse, nCoarse := records(7)
		if fine != coarse {
			t.Fatalf("seed %d: the records differ with the link sample period", seed)
		}
		if nFine <= nCoarse {
			t.Fatalf("seed %d: %d samples at 0.1 s, %d at 7 s", seed, nFine, nCoarse)
		}
	}
}

// A short run gets link samples by default: the period adapts to it.
func TestShortRunsHaveLinkSamples(t *testing.T) {
	topo, w, ds := randomCase(3)
	for i := range w.Jobs {
		w.Jobs[i].Arrival = 0
	}
	p, _ := policy.New("fifo")
	eng, err := engine.New(engine.Config{Seed: 3, Placer: &hdfs.Placer{}}, topo, w, ds, p)
	if err != nil {
		t.Fatal(err)
	}
	sink := &checkingSink{t: t}
	res, err := New(eng, Options{Sink: sink}).Run()
	if err != nil {
		t.Fatal(err)
	}
	samples := strings.Count(sink.buf.String(), "\nl ")
	if res.SimTime > 1 && samples == 0 {
		t.Fatalf("a run of %.1f s has no link sample", res.SimTime)
	}
	t.Logf("%.1f s simulated, %d samples", res.SimTime, samples)
}
