package campaign

import (
	"strings"
	"testing"
)

// An impossible TPC-H scale factor is refused with its line, not replaced
// by the default (50).
func TestScaleFactorRefused(t *testing.T) {
	for _, v := range []string{"-1", "0"} {
		_, err := Parse("c.yaml", []byte("name: x\ncluster: {racks: 2, hosts_per_rack: 2}\n"+
			"workload: {generator: {name: tpch, scale_factor: "+v+"}}\nruns: [{mode: sim, policies: [fifo]}]\n"))
		if err == nil || !strings.Contains(err.Error(), "c.yaml:3") {
			t.Errorf("scale_factor %s: error %v, want one at c.yaml:3", v, err)
		}
	}
}

// SWIM import options out of range are refused with the campaign's file
// and line, as the generators' are, not reported at run time against the
// trace file.
func TestSwimOptionsHaveTheirLine(t *testing.T) {
	for opt, want := range map[string]string{
		"replication: 0":          "c.yaml:3: workload swim: replication must be at least 1",
		"sample: -1":              "c.yaml:3: workload swim: sample must not be negative",
		"compute_ns_per_byte: -1": "c.yaml:3: workload swim: compute ns per byte",
		"block_size: 0":           "c.yaml:3: workload swim: block size must be positive",
	} {
		_, err := Parse("c.yaml", []byte("name: x\ncluster: {racks: 2, hosts_per_rack: 2}\n"+
			"workload: {swim: {trace: t.tsv, "+opt+"}}\nruns: [{mode: sim, policies: [fifo]}]\n"))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", opt, err, want)
		}
	}
}
