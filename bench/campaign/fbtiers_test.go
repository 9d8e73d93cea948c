package campaign

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/racklab/racklab/datagen/fbtiers"
)

// fbtiersCampaign is a campaign of the fbtiers generator with the given
// options after its name.
func fbtiersCampaign(opts string) string {
	return "name: fb\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: fbtiers" + opts +
		"}\nruns: [{mode: sim, policies: [fifo]}]\n"
}

// The fbtiers generator's options reach it; its trace is found from the
// campaign file's directory.
func TestFBTiersGenerator(t *testing.T) {
	trace, err := filepath.Abs(filepath.Join("..", "..", fbtiers.DefaultTrace))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(writeCampaign(t, fbtiersCampaign(", trace: "+trace+", jobs: 100, duration: 600, total_input: 10GiB, zipf: 0.5, scale: 0.001, seed: 4")))
	if err != nil {
		t.Fatal(err)
	}
	g := c.Workload.Generator
	if g.Jobs != 100 || g.Duration != 600 || g.TotalInput != 10<<30 || g.Zipf == nil || *g.Zipf != 0.5 || g.Trace != trace {
		t.Fatalf("generator %+v", g)
	}
	in, err := loadSingle(c)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, d := range in.ds.Datasets {
		total += d.Size
	}
	last := in.w.Jobs[len(in.w.Jobs)-1].Arrival
	if len(in.w.Jobs) != 100 || last >= 600 || total < 10737418-int64(len(in.ds.Datasets)) || total > 10737419+int64(len(in.ds.Datasets)) {
		t.Errorf("%d jobs, the last at %g s, %d B of input; want 100 within 600 s, 10 GiB × 0.001", len(in.w.Jobs), last, total)
	}

	// It runs: every job done.
	out := t.TempDir()
	if err := Execute(context.Background(), c, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	_, rows := c.Summaries(out)
	if s := rows[ModeSim]; len(s) != 1 || s[0].Jobs != 100 || s[0].FailedJobs != 0 {
		t.Fatalf("summaries %+v, want the 100 jobs, all done", s)
	}

	// Without trace: the repository's, from its campaigns directory.
	path := writeCampaign(t, fbtiersCampaign(""))
	c, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(path), "..", fbtiers.DefaultTrace); c.Workload.Generator.Trace != want {
		t.Errorf("default trace %s, want %s", c.Workload.Generator.Trace, want)
	}
	if _, _, _, err := generate(c.Workload.Generator); err == nil || !strings.Contains(err.Error(), "trace: open") {
		t.Errorf("no trace beside a campaign outside the repository: error %v", err)
	}
}

func TestFBTiersGeneratorOptionsRejected(t *testing.T) {
	cases := map[string]struct{ opts, want string }{
		"unknown key":     {", zipff: 1", `c.yaml:4: workload generator: unknown field "zipff"`},
		"bad total":       {", total_input: lots", "c.yaml:4: workload generator: bad size"},
		"zero total":      {", total_input: 0", "total_input is the distinct input's size and must be positive (got 0)"},
		"negative zipf":   {", zipf: -1", "zipf is the exponent of the input files' popularity and must be 0 or more (got -1)"},
		"no jobs":         {", jobs: 0", "jobs must be at least 1 (got 0)"},
		"zero duration":   {", duration: 0", "duration is a span in seconds and must be positive"},
		"empty trace":     {`, trace: ""`, "trace is empty"},
		"recurring's key": {", adhoc: 3", "adhoc is an option of the recurring generator, not of fbtiers"},
	}
	for name, tc := range cases {
		_, err := Load(writeCampaign(t, fbtiersCampaign(tc.opts)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
	for _, key := range []string{"total_input: 1GiB", "zipf: 1", "trace: t.tsv"} {
		_, err := Load(writeCampaign(t, "name: p\ncluster: {racks: 2, hosts_per_rack: 3}\nworkload:\n  generator: {name: ml, "+key+"}\nruns: [{mode: sim, policies: [fifo]}]\n"))
		name := key[:strings.Index(key, ":")]
		if want := name + " is an option of the fbtiers generator, not of ml"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s on ml: error %v, want %q", name, err, want)
		}
	}
}
