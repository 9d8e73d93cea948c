package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
)

// A small coflow trace: 4 ports, 3 coflows (sizes in MB, 2^20 bytes).
const smallCoflowTrace = `4 3
1 0 2 0 1 2 2:1 3:1
2 500 1 3 1 0:4
3 1500 3 0 1 2 1 1:0.5
`

// A campaign's coflow workload imports the trace onto the run set's
// topology with its options: a job per coflow, arrivals and shuffle sizes
// as in the trace, inputs on the tier it names, and every job runs.
func TestCoflowWorkload(t *testing.T) {
	trace := writeTrace(t, smallCoflowTrace)
	c, err := Load(writeCampaign(t, `name: cf
cluster: {racks: 1, hosts_per_rack: 4, slots: 2}
workloads:
  fb:
    coflow: {trace: `+trace+`, tier: mem, input_ratio: 2, compute_ns_per_byte: 1}
runs: [{mode: sim, policies: [fair, pushbox]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	in := loadNamed(t, c, "fb")
	if len(in.w.Jobs) != 3 || in.w.Jobs[1].ID != "coflow2" || in.w.Jobs[1].Arrival != 0.5 {
		t.Fatalf("jobs %+v, want coflow1-3 with coflow2 at 0.5 s", in.w.Jobs)
	}
	if got := in.w.Jobs[1].Stages[0].OutputBytes; got != 4<<20 {
		t.Errorf("coflow2's shuffle is %d B, want 4 MiB", got)
	}
	if d := in.ds.Datasets[1]; d.Size != 8<<20 || d.Blocks[0].Replicas[0].Tier != cluster.Mem {
		t.Errorf("coflow2's input %+v, want 8 MiB (input_ratio 2) on mem", d)
	}
	// reducer sizes as in the trace by default: coflow1's are equal
	// (no shares), and coflow3 has a single reducer
	for _, j := range in.w.Jobs {
		if j.Stages[1].Shares != nil {
			t.Errorf("%s has shares %v, want none for equal reducers", j.ID, j.Stages[1].Shares)
		}
	}
	if in.w.Jobs[0].Stages[1].ComputeNsPerByte != 1 {
		t.Errorf("compute_ns_per_byte not passed on: %+v", in.w.Jobs[0].Stages[1])
	}
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	_, rows := c.Summaries(out)
	if s := rows[ModeSim+"/fb"]; len(s) != 2 || s[0].Jobs != 3 || s[0].FailedJobs != 0 || s[1].Jobs != 3 || s[1].FailedJobs != 0 {
		t.Fatalf("summaries %+v, want the 3 jobs done under each policy", s)
	}
}

// reducer_sizes: trace (the default) keeps each reducer's size from the
// trace as its stage's share; mean splits the shuffle evenly; anything
// else is an error naming the field.
func TestCoflowWorkloadReducerSizes(t *testing.T) {
	trace := writeTrace(t, "2 1\n1 0 1 0 2 0:3 1:1\n")
	for _, tc := range []struct {
		field string
		want  []float64
	}{{"", []float64{3, 1}}, {", reducer_sizes: trace", []float64{3, 1}}, {", reducer_sizes: mean", nil}} {
		c, err := Load(writeCampaign(t, `name: cf
cluster: {racks: 2, hosts_per_rack: 1, slots: 2}
workloads:
  fb: {coflow: {trace: `+trace+tc.field+`}}
runs: [{mode: sim, policies: [fair]}]
`))
		if err != nil {
			t.Fatal(err)
		}
		in := loadNamed(t, c, "fb")
		if got := in.w.Jobs[0].Stages[1].Shares; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: shares %v, want %v", tc.field, got, tc.want)
		}
	}
	_, err := Load(writeCampaign(t, `name: cf
cluster: {racks: 2, hosts_per_rack: 1, slots: 2}
workloads:
  fb: {coflow: {trace: `+trace+`, reducer_sizes: median}}
runs: [{mode: sim, policies: [fair]}]
`))
	if err == nil || !strings.Contains(err.Error(), `reducer_sizes: unknown reducer sizes "median"`) {
		t.Errorf("reducer_sizes median: %v", err)
	}
}

// small_queue takes the jobs whose shuffle is below small_below; queue
// puts every job in one queue.
func TestCoflowWorkloadQueues(t *testing.T) {
	trace := writeTrace(t, smallCoflowTrace)
	c, err := Load(writeCampaign(t, `name: cf
cluster: {racks: 1, hosts_per_rack: 4, slots: 2}
queues: [{name: small, ordering: fifo}]
workloads:
  multi: {coflow: {trace: `+trace+`, small_queue: small, small_below: 3MiB}}
  all: {coflow: {trace: `+trace+`, queue: q1}}
runs: [{mode: sim, policies: [fair]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"multi": {"small", "", "small"}, "all": {"q1", "q1", "q1"}} {
		in := loadNamed(t, c, name)
		for i, j := range in.w.Jobs {
			if j.Queue != want[i] {
				t.Errorf("%s: %s is in queue %q, want %q", name, j.ID, j.Queue, want[i])
			}
		}
	}
}

// input_from, a SWIM trace beside the campaign file, gives each coflow
// the median input/shuffle ratio of the SWIM jobs of its decade of
// shuffle size; a SWIM trace that cannot be read stops the run's import
// with the option's name.
func TestCoflowWorkloadInputFrom(t *testing.T) {
	trace := writeTrace(t, smallCoflowTrace)
	var swim strings.Builder
	for i := range 20 { // 20 jobs shuffling 1-4 MiB (decade 6), with 3 times that in input
		fmt.Fprintf(&swim, "j%d\t%d\t1\t%d\t%d\t0\n", i, i, 3*(1+i%4)<<20, (1+i%4)<<20)
	}
	dir := filepath.Dir(trace)
	if err := os.WriteFile(filepath.Join(dir, "swim.tsv"), []byte(swim.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(writeCampaign(t, `name: cf
cluster: {racks: 1, hosts_per_rack: 4, slots: 2}
workloads:
  fb: {coflow: {trace: `+trace+`, input_from: `+filepath.Join(dir, "swim.tsv")+`}}
runs: [{mode: sim, policies: [fair]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	in := loadNamed(t, c, "fb")
	if d := in.ds.Datasets[1]; d.Size != 12<<20 { // coflow2 shuffles 4 MiB
		t.Errorf("coflow2's input is %d B, want 12 MiB (3 × its shuffle)", d.Size)
	}
	if got := in.w.Jobs[1].Stages[0].OutputBytes; got != 4<<20 {
		t.Errorf("coflow2's shuffle is %d B, want 4 MiB", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "swim.tsv"), []byte("j0\t0\t0\tlots\t1\t0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	topo, err := c.loadTopology(c.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := c.spec("fb")
	if _, err := loadWorkload(spec, topo); err == nil || !strings.Contains(err.Error(), "input_from: ") || !strings.Contains(err.Error(), "swim.tsv:1") {
		t.Errorf("a malformed SWIM trace: err = %v, want input_from and the file's line", err)
	}
}

// A bad coflow option, or coflow beside another source, stops the
// campaign at load time with the file and line.
func TestCoflowWorkloadErrors(t *testing.T) {
	cases := map[string]struct{ workload, want string }{
		"no trace":       {"coflow: {scale: 1}", `c.yaml:3:`},
		"bad tier":       {"coflow: {trace: t.txt, tier: tape}", `c.yaml:3:`},
		"bad ratio":      {"coflow: {trace: t.txt, input_ratio: 0}", `c.yaml:3: workload coflow: input ratio`},
		"zero scale":     {"coflow: {trace: t.txt, scale: 0}", `c.yaml:3: workload coflow: scale must be positive (got 0)`},
		"negative scale": {"coflow: {trace: t.txt, scale: -2}", `c.yaml:3: workload coflow: scale must be positive (got -2)`},
		"negative count": {"coflow: {trace: t.txt, max_coflows: -1}", `c.yaml:3: workload coflow: max coflows`},
		"unknown field":  {"coflow: {trace: t.txt, mappers: 3}", `c.yaml:3:`},
		"half a split":   {"coflow: {trace: t.txt, small_queue: fifo}", `c.yaml:3: workload coflow: small_queue and small_below go together`},
		"bad size":       {"coflow: {trace: t.txt, small_queue: fifo, small_below: lots}", `c.yaml:3: workload coflow: small_below "lots"`},
		"two sources":    {"coflow: {trace: t.txt}, swim: {trace: s.tsv}", `c.yaml:3: workload: give one of file, swim, coflow and generator`},
		"two inputs":     {"coflow: {trace: t.txt, input_ratio: 2, input_from: s.tsv}", `c.yaml:3: workload coflow: input_from and input_ratio both give the map input`},
	}
	for name, tc := range cases {
		_, err := Load(writeCampaign(t, "name: x\ncluster: {racks: 1, hosts_per_rack: 2}\nworkload: {"+tc.workload+"}\nruns: [{mode: sim, policies: [fair]}]\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, tc.want)
		}
	}
}

// scale (pushbox.md §5.2's workload scale, Fig. 13) multiplies every
// size of the trace, so the shuffle and the synthesised input grow by it,
// and with them the compute time (compute_ns_per_byte is per byte); the
// arrivals stay as they are.
func TestCoflowWorkloadScale(t *testing.T) {
	trace := writeTrace(t, smallCoflowTrace)
	c, err := Load(writeCampaign(t, `name: cf
cluster: {racks: 1, hosts_per_rack: 4, slots: 2}
workloads:
  x1: {coflow: {trace: `+trace+`, compute_ns_per_byte: 1}}
  x2: {coflow: {trace: `+trace+`, compute_ns_per_byte: 1, scale: 2.5}}
runs: [{mode: sim, policies: [fair]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	var jobs [2][]int64 // per workload: each job's shuffle, then its input
	var arrivals [2][]float64
	for i, name := range []string{"x1", "x2"} {
		in := loadNamed(t, c, name)
		for k, j := range in.w.Jobs {
			jobs[i] = append(jobs[i], j.Stages[0].OutputBytes, in.ds.Datasets[k].Size)
			arrivals[i] = append(arrivals[i], j.Arrival)
			if j.Stages[0].ComputeNsPerByte != 1 || j.Stages[1].ComputeNsPerByte != 1 {
				t.Errorf("%s %s: compute per byte %+v, want 1 (the bytes carry the scale)", name, j.ID, j.Stages)
			}
		}
	}
	for k := range jobs[0] {
		if got, want := jobs[1][k], jobs[0][k]*5/2; got != want {
			t.Errorf("size %d: %d B at scale 2.5, want %d (2.5 × %d)", k, got, want, jobs[0][k])
		}
	}
	if !slices.Equal(arrivals[0], arrivals[1]) {
		t.Errorf("arrivals %v at scale 2.5, want %v as at scale 1", arrivals[1], arrivals[0])
	}
}

// loadNamed loads one of a campaign's named workloads on its first run
// set's cluster.
func loadNamed(t *testing.T, c *Campaign, name string) *inputs {
	t.Helper()
	topo, err := c.loadTopology(c.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := c.spec(name)
	in, err := loadWorkload(spec, topo)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// writeTrace writes a coflow trace to a temporary file and returns its
// path.
func writeTrace(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
