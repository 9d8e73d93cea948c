package reproduce

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/bench/campaign"
)

// campaignText is a campaign whose headline row (lines 13-21) a test
// rewrites.
const campaignText = `name: paper
cluster: {racks: 2, hosts_per_rack: 2}
workload:
  file: w.yaml
runs:
  - mode: sim
    policies: [fifo, fair]
    repetitions: 2
headlines:
  title: a table
  note: a note
  rows:
    - metric: node_local_frac
      effect: points
      policy: fair
      baseline: fifo
      workload: w
      figure: Fig. 1
      spec: x.md §6.1 row 1
      paper: +12pp
`

func parseCampaign(t *testing.T, text string) *campaign.Campaign {
	t.Helper()
	c, err := campaign.Parse("c.yaml", []byte(text))
	if err != nil {
		t.Fatalf("the campaign itself: %v", err)
	}
	c.Path = "c.yaml"
	return c
}

func parseText(t *testing.T, text string) (*Table, error) {
	t.Helper()
	return Parse(parseCampaign(t, text))
}

func TestParse(t *testing.T) {
	tb, err := parseText(t, campaignText+`    - {metric: jct_mean_s, effect: relative, policy: fair, baseline: fifo, workload: w, figure: f, spec: s, paper: "-66%", modes: [sim], quote: "q"}
    - {metric: cross_rack_bytes, effect: relative, policy: fifo, baseline: fair, workload: w, figure: f, spec: s, paper: lower}
`)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Title != "a table" || tb.Note != "a note" || len(tb.Rows) != 3 {
		t.Fatalf("table %+v", tb)
	}
	r := tb.Rows[0]
	if r.Line != 13 || r.Metric != "node_local_frac" || r.Effect != Points || r.Paper != 12 || r.Direction != 1 || r.PaperText() != "+12.0 pp" {
		t.Errorf("row 1: %+v", r)
	}
	r = tb.Rows[1]
	if r.Effect != Relative || math.Abs(r.Paper+0.66) > 1e-12 || r.Direction != -1 || r.Quote != "q" || !r.AppliesTo("sim") || r.AppliesTo("local") || r.PaperText() != "-66.0%" {
		t.Errorf("row 2: %+v", r)
	}
	r = tb.Rows[2]
	if !math.IsNaN(r.Paper) || r.Direction != -1 || r.PaperText() != "lower (no number)" || !r.AppliesTo("local") {
		t.Errorf("row 3: %+v", r)
	}
	c, err := campaign.Parse("c.yaml", []byte(strings.SplitN(campaignText, "headlines:", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	if tb, err := Parse(c); tb != nil || err != nil {
		t.Errorf("a campaign without headlines: %v, %v", tb, err)
	}
}

func TestParseErrors(t *testing.T) {
	edits := []struct{ name, old, new, want string }{
		{"unknown metric", "metric: node_local_frac", "metric: locality", "c.yaml:13: headlines row 1: unknown metric \"locality\""},
		{"not a metric", "metric: node_local_frac", "metric: seed", "c.yaml:13: headlines row 1: unknown metric \"seed\""},
		{"unknown effect", "effect: points", "effect: ratio", "c.yaml:14: headlines row 1: unknown effect \"ratio\""},
		{"points of a non-fraction", "metric: node_local_frac", "metric: jct_mean_s", "c.yaml:14: headlines row 1: effect points is for fractions"},
		{"unit mismatch", "paper: +12pp", "paper: +12%", "c.yaml:20: headlines row 1: paper effect \"+12%\" is in % but the row's effect is points"},
		{"no unit", "paper: +12pp", "paper: 12", "c.yaml:20: headlines row 1: paper effect \"12\": give a number with its unit"},
		{"not a number", "paper: +12pp", "paper: lots pp", "c.yaml:20: headlines row 1: paper effect \"lots pp\": \"lots\" is not a number"},
		{"no direction", "paper: +12pp", "paper: 0pp", "c.yaml:20: headlines row 1: paper effect \"0pp\" has no direction"},
		{"below -100%", "effect: points\n      policy: fair\n      baseline: fifo\n      workload: w\n      figure: Fig. 1\n      spec: x.md §6.1 row 1\n      paper: +12pp",
			"effect: relative\n      policy: fair\n      baseline: fifo\n      workload: w\n      figure: Fig. 1\n      spec: x.md §6.1 row 1\n      paper: -150%",
			"c.yaml:20: headlines row 1: paper effect \"-150%\": a relative change cannot fall below -100%"},
		{"policy not run", "policy: fair", "policy: capacity", "c.yaml:15: headlines row 1: no run of the campaign runs capacity"},
		{"baseline not run", "baseline: fifo", "baseline: capacity", "c.yaml:16: headlines row 1: no run of the campaign runs capacity"},
		{"baseline is the policy", "baseline: fifo", "baseline: fair", "c.yaml:16: headlines row 1: the baseline is the policy itself"},
		{"unknown mode", "paper: +12pp", "paper: +12pp\n      modes: [local]", "c.yaml:21: headlines row 1: the campaign has no local runs"},
		{"unknown field", "paper: +12pp", "paper: +12pp\n      colour: red", "c.yaml:21: headlines row 1: unknown field \"colour\""},
		{"missing field", "      spec: x.md §6.1 row 1\n", "", "c.yaml:13: headlines row 1: missing field \"spec\""},
		{"no title", "  title: a table\n", "", "c.yaml:10: headlines: missing field \"title\""},
	}
	head := campaignText[:strings.Index(campaignText, "headlines:")]
	cases := []struct{ name, text, want string }{
		{"no rows", head + "headlines:\n  title: t\n  rows: []\n", "c.yaml:11: headlines: rows lists no headline"},
		{"not a mapping", head + "headlines: [1]\n", "c.yaml:9: headlines: want a mapping"},
	}
	for _, c := range edits {
		text := strings.Replace(campaignText, c.old, c.new, 1)
		if text == campaignText {
			t.Fatalf("%s: the replacement changed nothing", c.name)
		}
		cases = append(cases, struct{ name, text, want string }{c.name, text, c.want})
	}
	for _, c := range cases {
		_, err := parseText(t, c.text)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to start with %q", c.name, err, c.want)
		}
	}
}

// Every campaign file in campaigns/ parses, and its headlines too.
func TestRepositoryCampaigns(t *testing.T) {
	paths, err := filepath.Glob("../../campaigns/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no campaigns: %v", err)
	}
	found := false
	for _, p := range paths {
		c, err := campaign.Load(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		tb, err := Parse(c)
		if err != nil {
			t.Errorf("%v", err)
		}
		if filepath.Base(p) == "baselines.yaml" {
			found = tb != nil && len(tb.Rows) > 0
		}
		if filepath.Base(p) == "pushbox.yaml" && (tb == nil || len(tb.Rows) == 0) {
			t.Error("campaigns/pushbox.yaml has no headline rows")
		}
	}
	if !found {
		t.Error("campaigns/baselines.yaml has no headline rows")
	}
	if _, err := os.Stat("../../campaigns/baselines.yaml"); err != nil {
		t.Error(err)
	}
}
