package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const fb2009 = "../../../shared/traces/swim/FB-2009_samples_24_times_1hr_0.tsv"

func writeCampaign(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseErrorsNameFieldAndLine(t *testing.T) {
	cases := map[string]struct{ text, want string }{
		"unknown field": {"name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nrunz: []\n", "c.yaml:4"},
		"bad policy": {"name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nruns:\n  - mode: sim\n    policies: [fifo, nope]\n",
			`c.yaml:6: runs[0]: unknown policy "nope"`},
		"bad mode":               {"name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nruns:\n  - {mode: moon, policies: [fifo]}\n", `unknown mode "moon"`},
		"background":             {"name: x\nbackground: 1.5\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nruns: [{mode: sim, policies: [fifo]}]\n", "c.yaml:2"},
		"no topology":            {"name: x\nworkload: {file: w.yaml}\nruns: [{mode: sim, policies: [fifo]}]\n", "no topology"},
		"bad duration":           {"name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 2}\nlimits: {max_run_time: soon}\nruns: [{mode: sim, policies: [fifo]}]\n", "c.yaml:4"},
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
		t.Skip("FB-2009 trace not beside the repository")
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
}

func TestResumeRefusesAnotherCampaign(t *testing.T) {
	c := simCampaign(t)
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "campaign.yaml"), []byte("name: other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Execute(context.Background(), c, Options{Out: out})
	if err == nil || !strings.Contains(err.Error(), "different campaign") {
		t.Fatalf("error %v, want a refusal to mix campaigns", err)
	}
}
