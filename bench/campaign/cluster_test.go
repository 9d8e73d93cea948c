package campaign

import (
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
)

// A campaign's cluster is read by cluster.ParseUniform: its defaults, its
// errors with file and line.
func TestClusterUsesTheSharedParser(t *testing.T) {
	c, err := Load(writeCampaign(t, "name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 3, slots: 4}\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := cluster.DefaultUniform()
	want.Racks, want.HostsPerRack, want.Slots = 2, 3, 4
	if c.Uniform == nil || !reflect.DeepEqual(*c.Uniform, want) {
		t.Errorf("cluster = %+v, want %+v", c.Uniform, want)
	}
	// Hadoop 1.x's pools: map slots and reduce slots of their own
	c, err = Load(writeCampaign(t, "name: x\nworkload: {file: w.yaml}\ncluster: {racks: 2, hosts_per_rack: 3, slots: 12, reduce_slots: 3}\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Uniform == nil || c.Uniform.Slots != 12 || c.Uniform.ReduceSlots != 3 {
		t.Errorf("cluster with reduce_slots = %+v", c.Uniform)
	}
	_, err = Load(writeCampaign(t, "name: x\nworkload: {file: w.yaml}\ncluster:\n  racks: 2\n  hosts_per_rack: 3\n  reduce_slots: -1\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:6: cluster: reduce_slots must be between 0 (one pool) and") {
		t.Errorf("error %v, want c.yaml:6 naming reduce_slots", err)
	}
	_, err = Load(writeCampaign(t, "name: x\nworkload: {file: w.yaml}\ncluster:\n  racks: 2\n  hosts_per_rack: 3\n  oversubscription: 0\nruns: [{mode: sim, policies: [fifo]}]\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:6: cluster: oversubscription must be positive") {
		t.Errorf("error %v, want c.yaml:6 naming oversubscription", err)
	}
}
