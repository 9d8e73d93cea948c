package campaign

import "testing"

// The headlines section is accepted and kept raw, for bench/reproduce.
func TestHeadlinesKeptRaw(t *testing.T) {
	c, err := Parse("c.yaml", []byte(`name: p
cluster: {racks: 2, hosts_per_rack: 2}
workload: {file: w.yaml}
runs: [{mode: sim, policies: [fifo]}]
headlines:
  title: t
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Headlines == nil || c.Headlines.Line != 6 || len(c.Headlines.Content) != 2 || c.Headlines.Content[1].Value != "t" {
		t.Fatalf("headlines %+v", c.Headlines)
	}
	c, err = Parse("c.yaml", []byte("name: p\ncluster: {racks: 2, hosts_per_rack: 2}\nworkload: {file: w.yaml}\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if err != nil || c.Headlines != nil {
		t.Fatalf("without headlines: %v, %+v", err, c.Headlines)
	}
}
