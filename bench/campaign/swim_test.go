package campaign

import (
	"context"
	"path/filepath"
	"testing"
)

// A campaign's swim workload takes SWIM's traces with input paths too:
// the jobs that read one path read one dataset.
func TestSwimTraceWithInputPaths(t *testing.T) {
	trace, err := filepath.Abs(filepath.Join("..", "..", "datagen", "swim", "testdata", "FB-2010_withInputPaths_first50.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(writeCampaign(t, `name: paths
cluster: {racks: 2, hosts_per_rack: 3, slots: 4}
workload:
  swim: {trace: `+trace+`, scale: 0.0001, block_size: 1MiB, reduce_bytes: 1MiB}
runs: [{mode: sim, policies: [fifo]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	in, err := loadSingle(c)
	if err != nil {
		t.Fatal(err)
	}
	// 50 jobs over 38 distinct paths; job5 rereads job2's (see datagen/swim).
	if len(in.w.Jobs) != 50 || len(in.ds.Datasets) != 38 || in.w.Jobs[5].Stages[0].Input != "in-job2" {
		t.Fatalf("%d jobs, %d datasets, job5 reads %q", len(in.w.Jobs), len(in.ds.Datasets), in.w.Jobs[5].Stages[0].Input)
	}
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	_, rows := c.Summaries(out)
	if s := rows[ModeSim]; len(s) != 1 || s[0].Jobs != 50 || s[0].FailedJobs != 0 {
		t.Fatalf("summaries %+v, want the 50 jobs, all done", s)
	}
}

// loadSingle loads a campaign's topology and its one workload.
func loadSingle(c *Campaign) (*inputs, error) {
	topo, err := c.loadTopology(RunSet{})
	if err != nil {
		return nil, err
	}
	return loadWorkload(c.Workload, topo)
}
