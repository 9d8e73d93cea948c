package local

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/live"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/shaping"
)

// BenchmarkMaterialize1GiB writes a 1 GiB dataset (64 MiB blocks, three
// replicas, HDFS rack-aware placement) onto the tiers of a 3 × 3 emulated
// cluster, every worker generating its blocks from the seed, and reports
// the time against the least time the tiers' write rates allow. A ratio
// near 1 means the tiers, not the code, bound the rate. Needs root.
func BenchmarkMaterialize1GiB(b *testing.B) {
	if benchBin == "" {
		b.Skip("needs root")
	}
	for _, c := range []struct {
		name  string
		tiers []cluster.Tier
	}{
		{"hdd-160MBps", []cluster.Tier{{Kind: cluster.HDD, ReadBps: 200e6, WriteBps: 160e6, CapacityBytes: 8 << 30}}},
		{"hdd-80MBps", []cluster.Tier{{Kind: cluster.HDD, ReadBps: 100e6, WriteBps: 80e6, CapacityBytes: 8 << 30}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 3, HostsPerRack: 3, Slots: 2, NICBps: 125e6, Oversubscription: 3, Tiers: c.tiers})
			if err != nil {
				b.Fatal(err)
			}
			ds, err := workload.ParseDatasets("ds", []byte("block_size_bytes: 67108864\nreplication: 3\ndatasets:\n  - {name: in, size_bytes: 1073741824}\n"), topo)
			if err != nil {
				b.Fatal(err)
			}
			w, err := workload.ParseWorkloadFor("wl", []byte("jobs:\n  - id: j\n    stages:\n      - {name: map, kind: map, input: in}\n"), ds)
			if err != nil {
				b.Fatal(err)
			}
			var secs, bound []float64
			for i := 0; i < b.N; i++ {
				opt := Options{Prefix: fmt.Sprintf("bm%d", time.Now().UnixNano()%1000), Mode: shaping.Switched, Topology: topo,
					WorkerCommand: []string{benchBin, "worker"}, Dir: b.TempDir() + "/cluster", NATSPort: 14223, Cluster: "bm"}
				res, err := Run(context.Background(), opt, live.Config{Workload: w, Datasets: ds, Policy: "fifo", Seed: uint64(i + 1),
					OutDir: b.TempDir(), MaterializeOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				secs = append(secs, res.MaterializeSeconds)
				bound = append(bound, res.MaterializeBoundSeconds)
			}
			var s, bd float64
			for i := range secs {
				s += secs[i]
				bd += bound[i]
			}
			b.ReportMetric(s/float64(len(secs)), "s/materialize")
			b.ReportMetric(bd/float64(len(secs)), "s-tier-bound")
			b.ReportMetric(bd/s, "bound/measured")
			b.ReportMetric(3*float64(1<<30)/(s/float64(len(secs)))/1e6, "MB/s")
		})
	}
}
