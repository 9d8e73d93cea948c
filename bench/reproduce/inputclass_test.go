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

// writeBinnedRun writes a run's jobs.csv and attempts.csv: a small job
// (1 MB) whose one map read is node-local from memory when memLocal,
// else node-local from HDD, taking jct seconds; and a large job (1 GB)
// whose map reads remotely and takes 100 s.
func writeBinnedRun(t *testing.T, dir, policy string, seed uint64, memLocal bool, jct float64) {
	t.Helper()
	run := filepath.Join(dir, "sim", fmt.Sprintf("%s-seed%d", policy, seed))
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	jobs := "job,queue,state,arrival_s,submitted_s,started_s,finished_s,jct_s,tasks,attempts,reason,input_bytes\n" +
		fmt.Sprintf("small,default,succeeded,0,0,0,%g,%g,1,1,,1000000\n", jct, jct) +
		"large,default,succeeded,0,0,0,100,100,1,1,,1000000000\n"
	tier := "hdd"
	if memLocal {
		tier = "mem"
	}
	attempts := "job,stage,task,attempt,kind,host,rack,start_s,end_s,outcome,duplicate,locality,tier,input_bytes\n" +
		"small,0,0,0,map,0,0,0,1,succeeded,false,node," + tier + ",1000000\n" +
		"large,0,0,1,map,1,1,0,100,succeeded,false,remote,hdd,1000000000\n"
	for name, text := range map[string]string{"jobs.csv": jobs, "attempts.csv": attempts} {
		if err := os.WriteFile(filepath.Join(run, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Rows over an input class take their figures from the class's jobs
// only: over all jobs fair and fifo are alike; over the small jobs fair
// reads from memory (fifo from HDD) and halves the JCT.
func TestInputClassRows(t *testing.T) {
	dir := t.TempDir()
	writeInputClassRuns(t, dir)
	text := campaignText + `    - {metric: jct_mean_s, input: 0-128MB, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-50%"}
    - {metric: mem_local_frac, input: 0-128MB, effect: points, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "+100pp"}
    - {metric: mem_local_frac, input: 512MB-2GB, effect: points, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "+1pp"}
`
	tb, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Evaluate(parseCampaign(t, text), tb, dir, "sim")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ policy, base float64 }{{5, 10}, {1, 0}, {0, 0}}
	for i, w := range want {
		r := ch.Results[i+1]
		if math.Abs(r.Policy.Mean-w.policy) > 1e-9 || math.Abs(r.Baseline.Mean-w.base) > 1e-9 || !strings.Contains(r.Row.MetricText(), "(input ") {
			t.Errorf("row %d: %s: policy %g, baseline %g (%s); want %g, %g", i+2, r.Row.MetricText(), r.Policy.Mean, r.Baseline.Mean, r.Why, w.policy, w.base)
		}
	}

	line := strings.Count(campaignText, "\n") + 1
	for _, c := range []struct{ row, want string }{
		{`{metric: cross_rack_bytes, input: 0-128MB, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: lower}`,
			"metric cross_rack_bytes is not a figure of a class of jobs"},
		{`{metric: jct_mean_s, input: 0-128MB, queue: adhoc, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: lower}`,
			"a queue or of an input range, not both"},
		{`{metric: jct_mean_s, input: 1GB, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: lower}`,
			`input range "1GB": want LO-HI`},
	} {
		_, err := parseText(t, campaignText+"    - "+c.row+"\n")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), fmt.Sprintf("c.yaml:%d", line)) {
			t.Errorf("%s: %v, want %q at line %d", c.row, err, c.want, line)
		}
	}
}

// writeInputClassRuns writes fifo and fair, seeds 1 and 2, alike over all
// jobs; over the small jobs fair reads from memory and halves the JCT.
func writeInputClassRuns(t *testing.T, dir string) {
	t.Helper()
	same := func(policy string, seed uint64) metrics.Summary {
		return metrics.Summary{Policy: policy, Seed: seed, Jobs: 2, MakespanS: 100, JCTMeanS: 50}
	}
	writeRuns(t, dir, same("fifo", 1), same("fair", 1), same("fifo", 2), same("fair", 2))
	for _, seed := range []uint64{1, 2} {
		writeBinnedRun(t, dir, "fifo", seed, false, 10)
		writeBinnedRun(t, dir, "fair", seed, true, 5)
	}
}
