package reproduce

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
)

// writeJobs writes a run's jobs.csv in dir/sim/<policy>-seed<seed>: ten
// ad hoc jobs arriving at 0 and finishing every step seconds (JCTs step,
// 2·step, ..., 10·step), and two jobs of queue default arriving at 100
// and taking jct seconds each.
func writeJobs(t *testing.T, dir, policy string, seed uint64, step, jct float64) {
	t.Helper()
	run := filepath.Join(dir, "sim", fmt.Sprintf("%s-seed%d", policy, seed))
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("job,queue,state,arrival_s,submitted_s,started_s,finished_s,jct_s,tasks,attempts,reason\n")
	for i := 1; i <= 10; i++ {
		f := step * float64(i)
		fmt.Fprintf(&b, "a%d,adhoc,succeeded,0,0,0,%g,%g,2,2,\n", i, f, f)
	}
	for i := 1; i <= 2; i++ {
		fmt.Fprintf(&b, "r%d,default,succeeded,100,100,100,%g,%g,2,2,\n", i, 100+jct, jct)
	}
	if err := os.WriteFile(filepath.Join(run, "jobs.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// queueRows are rows over one queue's jobs: the ad hoc p90, makespan and
// mean, and the default queue's mean.
const queueRows = campaignText + `    - {metric: jct_p90_s, queue: adhoc, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%"}
    - {metric: makespan_s, queue: adhoc, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%"}
    - {metric: jct_mean_s, queue: adhoc, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%"}
    - {metric: jct_mean_s, queue: default, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-25%"}
`

// queueResults writes runs whose summaries make fair and fifo alike over
// all jobs, while fair halves the ad hoc jobs' times and cuts the default
// queue's by a quarter.
func queueResults(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	same := func(policy string, seed uint64) metrics.Summary {
		return metrics.Summary{Policy: policy, Seed: seed, Jobs: 12, MakespanS: 200, JCTMeanS: 50, JCTP90S: 90}
	}
	writeRuns(t, dir, same("fifo", 1), same("fair", 1), same("fifo", 2), same("fair", 2))
	for _, seed := range []uint64{1, 2} {
		writeJobs(t, dir, "fifo", seed, 10, 40)
		writeJobs(t, dir, "fair", seed, 5, 30)
	}
	return dir
}

func TestQueueRows(t *testing.T) {
	dir := queueResults(t)
	tb, err := parseText(t, queueRows)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Evaluate(parseCampaign(t, queueRows), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	// fifo's ad hoc JCTs 10..100: p90 (nearest rank) 90, mean 55,
	// makespan 100; fair's half of each
	want := []struct {
		metric         string
		policy, base   float64
		measured       float64
		outcomeWanted  Outcome
		metricTextWant string
	}{
		{"jct_p90_s", 45, 90, -0.5, Reproduced, "jct_p90_s (queue adhoc)"},
		{"makespan_s", 50, 100, -0.5, Reproduced, "makespan_s (queue adhoc)"},
		{"jct_mean_s", 27.5, 55, -0.5, Reproduced, "jct_mean_s (queue adhoc)"},
		{"jct_mean_s", 30, 40, -0.25, Reproduced, "jct_mean_s (queue default)"},
	}
	for i, w := range want {
		r := ch.Results[i+1]
		if r.Row.Metric != w.metric || math.Abs(r.Policy.Mean-w.policy) > 1e-9 || math.Abs(r.Baseline.Mean-w.base) > 1e-9 ||
			math.Abs(r.Measured-w.measured) > 1e-9 || r.Outcome != w.outcomeWanted || r.Row.MetricText() != w.metricTextWant {
			t.Errorf("row %d: %s %s: policy %g, baseline %g, measured %g, %v (%s); want %g, %g, %g, %v",
				i+2, r.Row.MetricText(), r.Row.Metric, r.Policy.Mean, r.Baseline.Mean, r.Measured, r.Outcome, r.Why,
				w.policy, w.base, w.measured, w.outcomeWanted)
		}
	}
	var out strings.Builder
	if err := ch.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "jct_p90_s (queue adhoc)") {
		t.Errorf("the table does not say the row's queue:\n%s", out.String())
	}
}

func TestQueueRowErrors(t *testing.T) {
	dir := queueResults(t)
	// a queue no job is in: an error at the row's line, naming the
	// run's queues
	text := campaignText + `    - {metric: jct_p90_s, queue: adhox, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%"}
`
	tb, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Evaluate(parseCampaign(t, text), tb, dir, "sim")
	line := strings.Count(campaignText, "\n") + 1
	if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("c.yaml:%d: ", line)) ||
		!strings.Contains(err.Error(), `no job is in queue "adhox" (the run's jobs are in adhoc, default)`) {
		t.Errorf("queue adhox: %v", err)
	}

	// a run without jobs.csv: not measured
	if err := os.Remove(filepath.Join(dir, "sim", "fair-seed2", "jobs.csv")); err != nil {
		t.Fatal(err)
	}
	tb, err = parseText(t, queueRows)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Evaluate(parseCampaign(t, queueRows), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	if r := ch.Results[1]; r.Outcome != NotMeasured || !strings.Contains(r.Why, "no jobs.csv in") {
		t.Errorf("without jobs.csv: %v, %q", r.Outcome, r.Why)
	}

	// what a row over a queue may not be
	for _, c := range []struct{ row, want string }{
		{`{metric: cross_rack_bytes, queue: adhoc, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: lower}`,
			"metric cross_rack_bytes is not a figure of the jobs: over the jobs of queue adhoc, give one of jobs, failed_jobs"},
		{`{metric: jct_mean_s, queue: "", effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: lower}`,
			"queue names the queue whose jobs the metric is over"},
	} {
		_, err := parseText(t, campaignText+"    - "+c.row+"\n")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), fmt.Sprintf("c.yaml:%d", line)) {
			t.Errorf("%s: %v, want %q at line %d", c.row, err, c.want, line)
		}
	}
}
