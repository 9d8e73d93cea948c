package campaign

import (
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/engine"
)

// Queues come from the campaign with their orderings; bad ones name their
// line.
func TestQueues(t *testing.T) {
	c, err := Load(writeCampaign(t, `name: q
cluster: {racks: 2, hosts_per_rack: 2}
workload: {file: w.yaml}
queues:
  - {name: prod, capacity: 0.7, max_capacity: 0.9, ordering: fair}
  - {name: adhoc, weight: 2}
runs: [{mode: sim, policies: [capacity]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.Queue{{Name: "prod", Weight: 1, Capacity: 0.7, MaxCapacity: 0.9, Ordering: engine.OrderFair}, {Name: "adhoc", Weight: 2}}
	if len(c.Queues) != 2 || c.Queues[0] != want[0] || c.Queues[1] != want[1] {
		t.Fatalf("queues %+v, want %+v", c.Queues, want)
	}
	head := "name: q\ncluster: {racks: 2, hosts_per_rack: 2}\nworkload: {file: w.yaml}\nruns: [{mode: sim, policies: [fifo]}]\nqueues:\n"
	for text, msg := range map[string]string{
		"  - {name: a, ordering: lifo}\n":                              `c.yaml:6: queues[0]: unknown queue ordering "lifo"`,
		"  - {name: a, capacity: 0.5, max_capacity: 0.2}\n":            "c.yaml:6: queues[0]: queue a: max capacity 0.2 is below its capacity 0.5",
		"  - {name: a, colour: red}\n":                                 "c.yaml:6",
		"  - {weight: 2}\n":                                            "c.yaml:6",
		"  - {name: a, weight: 1}\n  - {name: a, weight: 2}\n":         `c.yaml:7: queues[1]: queue "a" is named twice (first at line 6)`,
		"  - {name: a, capacity: 0.7}\n  - {name: b, capacity: 0.7}\n": "the queues' capacities add up to 1.4",
	} {
		_, err := Load(writeCampaign(t, head+text))
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want it to contain %q", text, err, msg)
		}
	}
}

// The recurring generator's predictions reach the runs (a planner is told
// them); a predictions file needs a workload file.
func TestPredictionsReachTheRuns(t *testing.T) {
	c, err := Load(writeCampaign(t, "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: recurring, set: w1, scale: 0.01, size_error: 0.3}\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := loadSingle(c)
	if err != nil {
		t.Fatal(err)
	}
	if in.pred == nil || len(in.pred.Jobs) == 0 {
		t.Fatal("the recurring generator's predictions were dropped")
	}
	if err := in.pred.CheckAgainst(in.w); err != nil {
		t.Fatal(err)
	}
	_, err = Load(writeCampaign(t, "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: tpch}\n  predicted: p.yaml\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:5") {
		t.Fatalf("predictions without a workload file: %v", err)
	}
}
