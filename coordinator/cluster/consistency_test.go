package cluster

import (
	"bytes"
	"strings"
	"testing"
)

// Validate refuses topologies built in code whose racks and hosts do not
// agree, instead of panicking (a negative host in a rack's list) or
// passing them on: WriteTopology then dropped a host no rack lists, or
// wrote names twice in a file that ParseTopology refuses.
func TestValidateRefusesInconsistentTopologies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Topology)
		want   string
	}{
		{"negative host in a rack", func(u *Topology) { u.Racks[0].Hosts = append(u.Racks[0].Hosts, -1) }, `rack "r0" lists host -1 which is not in it`},
		{"host listed twice", func(u *Topology) { u.Racks[0].Hosts = append(u.Racks[0].Hosts, 0) }, `rack "r0" lists host "r0h0" twice`},
		{"host in no list", func(u *Topology) { u.Racks[0].Hosts = u.Racks[0].Hosts[:1] }, `host "r0h1" is not in the host list of its rack "r0"`},
		{"host of no rack", func(u *Topology) { u.Racks[0].Hosts = u.Racks[0].Hosts[:1]; u.Hosts[1].Rack = 7 }, `host "r0h1": rack 7 is not a rack of the topology (it has 2)`},
		{"host of a negative rack", func(u *Topology) { u.Racks[0].Hosts = u.Racks[0].Hosts[:1]; u.Hosts[1].Rack = -1 }, `host "r0h1": rack -1 is not a rack of the topology (it has 2)`},
		{"host names twice", func(u *Topology) { u.Hosts[3].Name = "r0h0" }, `host name "r0h0" is used twice`},
		{"rack names twice", func(u *Topology) { u.Racks[1].Name = "r0" }, `rack name "r0" is used twice`},
		{"blank host name", func(u *Topology) { u.Hosts[2].Name = " " }, `host #3 needs a name (got " ")`},
		{"blank rack name", func(u *Topology) { u.Racks[1].Name = "" }, `rack #2 needs a name (got "")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := Uniform(UniformSpec{Racks: 2, HostsPerRack: 2, Slots: 1, NICBps: 1e6, Oversubscription: 1})
			if err != nil {
				t.Fatal(err)
			}
			tc.mutate(u)
			var err2 error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Validate panicked: %v", r)
					}
				}()
				err2 = u.Validate()
			}()
			if err2 == nil || err2.Error() != tc.want {
				t.Errorf("Validate: %v, want %s", err2, tc.want)
			}
			var buf bytes.Buffer
			if err := WriteTopology(&buf, u); err == nil {
				t.Errorf("WriteTopology wrote it:\n%s", buf.String())
			}
		})
	}
}

// A positive capacity_gib under a byte is refused: rounded to 0 bytes, it
// read as an unbounded tier.
func TestTinyCapacityIsNotUnbounded(t *testing.T) {
	src := "host_defaults:\n  slots: 1\n  nic_gbps: 1\n  tiers:\n    - {kind: hdd, read_mb_s: 1, write_mb_s: 1, capacity_gib: 1e-12}\nracks:\n  - {name: a, host_count: 1, oversubscription: 1}\n"
	_, err := ParseTopology("t.yaml", []byte(src))
	want := `t.yaml:5: host_defaults tier hdd: capacity_gib 1e-12 is less than a byte`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
	// half a byte and more round to a byte
	topo, err := ParseTopology("t.yaml", []byte(strings.Replace(src, "1e-12", "4.6566128730773926e-10", 1)))
	if err != nil || topo.Hosts[0].Tiers[0].CapacityBytes != 1 {
		t.Errorf("half a byte: %v", err)
	}
}
