package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const headlinesCampaign = `# a campaign with a table
name: table
cluster: {racks: 2, hosts_per_rack: 2, slots: 2}
workload:
  swim: {trace: TRACE, max_jobs: 20}
runs:
  - mode: sim
    policies: [fifo]
headlines:
  title: "FIFO against itself"
  rows:
    - {metric: jct_mean_s, effect: relative, policy: fifo, baseline: fifo, paper: "0%", workload: "20 jobs"}
`

func TestSameRuns(t *testing.T) {
	base := headlinesCampaign
	for _, tc := range []struct {
		name, other string
		same        bool
	}{
		{"itself", base, true},
		{"comments and layout", strings.Replace(strings.Replace(base, "# a campaign with a table\n", "", 1), "policies: [fifo]", "policies:\n      - fifo # the only one", 1), true},
		{"a headline's wording", strings.Replace(base, `workload: "20 jobs"`, `workload: "twenty jobs"`, 1), true},
		{"no headlines at all", base[:strings.Index(base, "headlines:")], true},
		{"a policy", strings.Replace(base, "[fifo]", "[fair]", 1), false},
		{"the workload's size", strings.Replace(base, "max_jobs: 20", "max_jobs: 21", 1), false},
		{"a seed added", base + "seed: 2\n", false},
		{"not YAML", "name: [", false},
	} {
		if got := SameRuns([]byte(base), []byte(tc.other)); got != tc.same {
			t.Errorf("%s: SameRuns = %v, want %v", tc.name, got, tc.same)
		}
	}
}

// A result directory whose runs finished takes a campaign that changed
// only its headlines, keeps every run and records the new file; one that
// changed a run is refused.
func TestResumeAcceptsChangedHeadlines(t *testing.T) {
	trace, err := filepath.Abs(fb2009)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(headlinesCampaign, "TRACE", trace, 1)
	c, err := Load(writeCampaign(t, text))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	done := filepath.Join(out, "sim", "fifo-seed1", doneFile)
	before, err := os.Stat(done)
	if err != nil {
		t.Fatal(err)
	}

	edited := strings.Replace(text, `paper: "0%"`, `paper: "+0%"`, 1)
	c2, err := Load(writeCampaign(t, edited))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	logf := func(format string, args ...any) { fmt.Fprintf(&log, format+"\n", args...) }
	if err := Execute(context.Background(), c2, Options{Out: out, Parallel: 1, Logf: logf}); err != nil {
		t.Fatalf("a campaign that changed only its headlines: %v", err)
	}
	if !strings.Contains(log.String(), "changed only in its headlines") {
		t.Errorf("the log does not say the campaign file was taken:\n%s", log.String())
	}
	if after, err := os.Stat(done); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the finished run was redone (%v)", err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "campaign.yaml")); string(got) != edited {
		t.Errorf("campaign.yaml is not the edited file:\n%s", got)
	}

	c3, err := Load(writeCampaign(t, strings.Replace(edited, "max_jobs: 20", "max_jobs: 19", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c3, Options{Out: out, Parallel: 1}); err == nil || !strings.Contains(err.Error(), "different campaign") {
		t.Fatalf("a campaign with another workload: %v, want a refusal", err)
	}
}
