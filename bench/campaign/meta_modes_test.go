package campaign

import (
	"context"
	"testing"
	"time"
)

// Running one mode's run sets after another's (as bench reproduce does,
// --mode sim then --mode local) keeps meta.json's record of the first.
func TestMetaKeptAcrossModes(t *testing.T) {
	c, err := Load(writeCampaign(t, `name: tiny
cluster: {racks: 2, hosts_per_rack: 3}
workload:
  generator: {name: recurring, set: w1, scale: 0.01}
runs:
  - {mode: sim, policies: [fifo]}
  - {mode: sim, name: b, policies: [fifo]}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	all := c.Runs
	read := func() Meta { t.Helper(); return readMeta(t, out) }
	c.Runs = all[:1] // reproduce.Prepare's cut: one mode's run sets
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	first := read()
	time.Sleep(1100 * time.Millisecond)
	c.Runs = all[1:]
	if err := Execute(context.Background(), c, Options{Out: out, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if second := read(); second.Started != first.Started {
		t.Errorf("meta.json rewritten: started %s, was %s (resumed %v); the kept runs' record is lost", second.Started, first.Started, second.Resumed)
	}
}
