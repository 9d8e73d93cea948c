package campaign

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/worker/agent"
	"github.com/racklab/racklab/worker/store"
)

const fb2009 = "../../traces/swim/FB-2009_samples_24_times_1hr_0.tsv"

func writeCampaign(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// generated loads a campaign from text and generates its workload,
// failing the test on any error.
func generated(t *testing.T, text string) (*workload.Workload, *workload.Datasets, *workload.Predicted) {
	t.Helper()
	c, err := Load(writeCampaign(t, text))
	if err != nil {
		t.Fatal(err)
	}
	w, ds, p, err := generate(c.Workload.Generator)
	if err != nil {
		t.Fatal(err)
	}
	return w, ds, p
}

func TestParseErrorsNameFieldAndLine(t *testing.T) {
	cases := map[string]struct{ text, want string }{
		"unknown field": {"name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nrunz: []\n", "c.yaml:4"},
		"bad policy": {"name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nruns:\n  - mode: sim\n    policies: [fifo, nope]\n",
			`c.yaml:6: runs[0] policies[1]: unknown policy "nope" (known: ` + strings.Join(policy.Names(), ", ") + `)`},
		"bad mode":               {"name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nruns:\n  - {mode: moon, policies: [fifo]}\n", `unknown mode "moon"`},
		"background":             {"name: x\nbackground: 1.5\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nruns: [{mode: sim, policies: [fifo]}]\n", "c.yaml:2"},
		"no topology":            {"name: x\nworkload: {file: w.yaml}\nruns: [{mode: sim, policies: [fifo]}]\n", "no topology"},
		"bad duration":           {"name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nlimits: {max_run_time: soon}\nruns: [{mode: sim, policies: [fifo]}]\n", "c.yaml:4"},
		"unknown generator":      {"name: x\nworkload: {generator: {name: nope}}\ncluster: {racks: 2, hosts_per_rack: 2}\nruns: [{mode: sim, policies: [fifo]}]\n", `c.yaml:2: workload generator: unknown generator "nope"`},
		"remote without address": {"name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nruns: [{mode: remote, policies: [fifo]}]\n", "needs listen"},
	}
	for name, c := range cases {
		_, err := Load(writeCampaign(t, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, c.want)
		}
	}
}

func simCampaign(t *testing.T) *Campaign {
	t.Helper()
	trace, err := filepath.Abs(fb2009)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(trace); err != nil {
		t.Fatalf("FB-2009 trace missing from traces/: %v", err)
	}
	c, err := Load(writeCampaign(t, `name: resume
cluster: {racks: 4, hosts_per_rack: 5, slots: 4}
workload:
  swim: {trace: `+trace+`, max_jobs: 150}
runs:
  - mode: sim
    policies: [fifo, fair, capacity]
    repetitions: 3
`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Interrupted halfway, a campaign resumes without redoing finished runs.
func TestInterruptedCampaignResumes(t *testing.T) {
	c := simCampaign(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	finished := 0
	err := Execute(ctx, c, Options{Out: out, Parallel: 1, Logf: func(format string, args ...any) {
		if strings.Contains(format, "done in") {
			mu.Lock()
			finished++
			if finished == 4 {
				cancel()
			}
			mu.Unlock()
		}
	}})
	if err == nil {
		t.Fatal("the interrupted campaign reported success")
	}
	runs := c.Matrix(out)
	stamps := map[string]time.Time{}
	for _, r := range runs {
		if _, ok := Done(r); ok {
			fi, _ := os.Stat(filepath.Join(r.Dir, doneFile))
			stamps[r.ID()] = fi.ModTime()
		}
	}
	if len(stamps) != 4 {
		t.Fatalf("%d runs done after the interruption, want 4", len(stamps))
	}
	var redone []string
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 2, Logf: func(format string, args ...any) {
		if strings.Contains(format, "done in") {
			mu.Lock()
			redone = append(redone, args[0].(string))
			mu.Unlock()
		}
	}}); err != nil {
		t.Fatal(err)
	}
	if len(redone) != len(runs)-4 {
		t.Fatalf("the resumed campaign ran %d runs (%v), want %d", len(redone), redone, len(runs)-4)
	}
	for _, id := range redone {
		if _, ok := stamps[id]; ok {
			t.Fatalf("run %s was done before and was redone", id)
		}
	}
	for _, r := range runs {
		if _, ok := Done(r); !ok {
			t.Fatalf("run %s is not done", r.ID())
		}
		fi, _ := os.Stat(filepath.Join(r.Dir, doneFile))
		if st, ok := stamps[r.ID()]; ok && !fi.ModTime().Equal(st) {
			t.Fatalf("run %s's records were rewritten", r.ID())
		}
	}
	sum, err := os.ReadFile(filepath.Join(out, "sim", "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(sum), "\n"); n != len(runs)+1 {
		t.Fatalf("summary.csv has %d lines, want %d", n, len(runs)+1)
	}

	// With progress bars in place of the log (a terminal), a resume is
	// still said, with how to start over.
	var progress strings.Builder
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("resuming: %d of %d runs already done in %s are kept; remove it to start over", len(runs), len(runs), out)
	if !strings.Contains(progress.String(), want) {
		t.Fatalf("the progress output does not say it resumed:\n%s", progress.String())
	}

	// the report's check: every finished run intact, then one record
	// file cut short and named
	if problems, err := ResultDirProblems(out); err != nil || len(problems) != 0 {
		t.Fatalf("problems of an intact result directory: %v %v", problems, err)
	}
	if err := os.Truncate(filepath.Join(runs[0].Dir, "jobs.csv"), 10); err != nil {
		t.Fatal(err)
	}
	problems, err := ResultDirProblems(out)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], "run "+runs[0].ID()+": jobs.csv is 10 bytes, done.json says") {
		t.Fatalf("problems after jobs.csv was cut short: %v %v", problems, err)
	}
}

// A result directory holding a finished run of another campaign is
// refused; one where no run of it finished (it failed first, or was
// stopped) is taken over.
func TestResumeRefusesAnotherCampaign(t *testing.T) {
	c := simCampaign(t)
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "campaign.yaml"), []byte("name: other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "sim", "fifo-seed1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "sim", "fifo-seed1", doneFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Execute(context.Background(), c, Options{Out: out})
	if err == nil || !strings.Contains(err.Error(), "different campaign") {
		t.Fatalf("error %v, want a refusal to mix campaigns", err)
	}

	unfinished := t.TempDir()
	if err := os.WriteFile(filepath.Join(unfinished, "campaign.yaml"), []byte("name: other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, Options{Out: unfinished, Parallel: 1}); err != nil {
		t.Fatalf("a directory where no run finished: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(unfinished, "campaign.yaml")); string(got) != string(c.Source) {
		t.Errorf("campaign.yaml is %q, want the campaign's own", got)
	}
}

// An input file that cannot be read is named, with the campaign and the
// key, before anything is written: a result directory left behind would
// refuse the corrected campaign.
func TestMissingInputIsNamedAndLeavesNoResultDir(t *testing.T) {
	for _, tc := range []struct{ workload, want string }{
		{"workload: {swim: {trace: nope.tsv}}\n", "workload: swim trace "},
		{"workload: {file: w.yaml, datasets: d.yaml}\n", "workload: file "},
		{"workloads:\n  big: {coflow: {trace: gone.txt}}\n", "workload big: coflow trace "},
	} {
		path := writeCampaign(t, "name: x\ncluster: {racks: 2, hosts_per_rack: 2}\n"+tc.workload+"runs:\n  - {mode: sim, policies: [fifo]}\n")
		c, err := Load(path)
		if err != nil {
			t.Fatalf("%q: %v", tc.workload, err)
		}
		out := filepath.Join(t.TempDir(), "results")
		err = Execute(context.Background(), c, Options{Out: out, Parallel: 1})
		if err == nil || !strings.Contains(err.Error(), path+": "+tc.want) || !strings.Contains(err.Error(), "no such file or directory") {
			t.Errorf("%q: error %v, want it to name %q and the missing file", tc.workload, err, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%q: the result directory was made (%v)", tc.workload, err)
		}
	}
}

// A remote run set reaches workers that are already up, as on a lab
// cluster: they register with each run's coordinator, and are reset, not
// stopped, between runs.
func TestRemoteRunsReachStandingWorkers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	creds, err := wire.NewCredentials([]string{"r0h0", "r0h1", "r1h0", "r1h1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := wire.WriteCredentials(filepath.Join(dir, "creds"), creds); err != nil {
		t.Fatal(err)
	}
	writeFile := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("ds.yaml", "block_size_bytes: 1048576\nreplication: 2\ndatasets:\n  - {name: in, size_bytes: 6291456}\n")
	writeFile("wl.yaml", "jobs:\n  - id: j\n    stages:\n      - {name: map, kind: map, input: in}\n      - {name: reduce, kind: reduce, tasks: 2, after: [map]}\n")
	writeFile("c.yaml", `name: remote
cluster: {racks: 2, hosts_per_rack: 2, slots: 2}
workload: {file: wl.yaml, datasets: ds.yaml}
limits: {max_run_time: 15s}
runs:
  - {mode: remote, policies: [fifo, fair], listen: "`+listen+`", credentials: creds}
`)
	c, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for r := 0; r < 2; r++ {
		for h := 0; h < 2; h++ {
			cfg := agent.Config{Host: fmt.Sprintf("r%dh%d", r, h), Rack: fmt.Sprintf("r%d", r), Slots: 2, NATSURL: "nats://" + listen,
				DataAddr: "127.0.0.1:0", MemberAddr: "127.0.0.1",
				Tiers: []store.TierConfig{}}
			// each worker holds its own file only
			if cfg.Password, err = wire.LoadWorkerSecret(wire.WorkerFile(filepath.Join(dir, "creds"), cfg.Host), cfg.Host); err != nil {
				t.Fatal(err)
			}
			for _, k := range []cluster.TierKind{cluster.Mem, cluster.SSD, cluster.HDD} {
				cfg.Tiers = append(cfg.Tiers, store.TierConfig{Kind: k, Dir: filepath.Join(dir, cfg.Host, k.String())})
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := agent.Run(ctx, cfg); err != nil && ctx.Err() == nil {
					t.Errorf("worker %s: %v", cfg.Host, err)
				}
			}()
		}
	}
	out := filepath.Join(dir, "results")
	if err := Execute(context.Background(), c, Options{Out: out, Logf: t.Logf}); err != nil {
		t.Fatal(err)
	}
	_, rows := c.Summaries(out)
	if len(rows[ModeRemote]) != 2 {
		t.Fatalf("%d remote runs done, want 2", len(rows[ModeRemote]))
	}
	for _, s := range rows[ModeRemote] {
		if s.Jobs != 1 || s.FailedJobs != 0 {
			t.Errorf("%s: %d jobs, %d failed", s.Policy, s.Jobs, s.FailedJobs)
		}
	}
}

// A campaign's workload may come from one of datagen's generators.
func TestGeneratedWorkload(t *testing.T) {
	c, err := Load(writeCampaign(t, "name: g\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: tpch, scale_factor: 1, scale: 0.01}\nruns: [{mode: sim, policies: [fair]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	_, rows := c.Summaries(out)
	if s := rows[ModeSim]; len(s) != 1 || s[0].Jobs != 110 || s[0].FailedJobs != 0 {
		t.Fatalf("summaries %+v, want the 110 jobs of the 22 TPC-H queries, all done", s)
	}
}
