package sim

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/datagen/swim"
)

// BenchmarkFB2009 simulates the whole FB-2009 SWIM trace (5,894 jobs) on 20
// racks × 30 hosts under each baseline, as `make demo` does. Run it with
// -benchtime 1x: one iteration is one whole run.
func BenchmarkFB2009(b *testing.B) {
	path := filepath.Join("..", "..", "traces", "swim", "FB-2009_samples_24_times_1hr_0.tsv")
	f, err := os.Open(path)
	if err != nil {
		b.Fatalf("trace missing from traces/: %v", err)
	}
	w, ds, err := swim.Import(f, path, swim.DefaultOptions())
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 20, HostsPerRack: 30, Slots: 8, NICBps: 125e6, Oversubscription: 5})
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range policy.Deciding() {
		b.Run(name, func(b *testing.B) {
			var events int64
			var ms runtime.MemStats
			for i := 0; i < b.N; i++ {
				_, tm, err := RunOne(Spec{Topology: topo, Workload: w, Datasets: ds, Policy: policy.Spec{Name: name}, Seed: 1, Dir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				events += tm.Events
			}
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-MiB")
		})
	}
}
