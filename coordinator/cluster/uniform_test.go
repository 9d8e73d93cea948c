package cluster

import (
	"reflect"
	"strings"
	"testing"

	"github.com/racklab/racklab/internal/yamlfile"
)

// parseUniformDoc reads the mapping under key "cluster" of src with
// ParseUniform, as a campaign does.
func parseUniformDoc(t *testing.T, src string) (*UniformSpec, error) {
	t.Helper()
	d, top, err := yamlfile.Parse("c.yaml", []byte(src))
	if err != nil {
		return nil, err
	}
	m := d.Map(top, "")
	spec := ParseUniform(d, m.Node("cluster"), "cluster")
	if err := d.Err(); err != nil {
		if spec != nil {
			t.Errorf("ParseUniform returned %+v with error %v", spec, err)
		}
		return nil, err
	}
	return spec, nil
}

// The defaults are what campaigns and bench local had before they were
// shared, and what the docs' commands rely on; changing them changes
// results, so it must be deliberate.
func TestDefaultUniform(t *testing.T) {
	d := DefaultUniform()
	if d.Slots != 2 || d.NICBps != 125e6 || d.Oversubscription != 3 || !reflect.DeepEqual(d.Tiers, DefaultTiers()) {
		t.Errorf("DefaultUniform() = %+v", d)
	}
	if _, err := Uniform(d); err != nil {
		t.Errorf("the default cluster does not build: %v", err)
	}
	d.Tiers[0].ReadBps = 1
	if DefaultUniform().Tiers[0].ReadBps == 1 {
		t.Error("DefaultUniform shares its tiers between calls")
	}
}

func TestParseUniformDefaults(t *testing.T) {
	got, err := parseUniformDoc(t, "cluster: {racks: 4, hosts_per_rack: 5}\n")
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultUniform()
	want.Racks, want.HostsPerRack = 4, 5
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got %+v, want %+v", *got, want)
	}
	// A topology file's uniform form gets the same defaults.
	topo, err := ParseTopology("u.yaml", []byte("uniform: {racks: 4, hosts_per_rack: 5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	wantTopo, _ := Uniform(want)
	if !reflect.DeepEqual(topo, wantTopo) {
		t.Error("uniform form with defaults differs from Uniform(DefaultUniform())")
	}
}

func TestParseUniformFields(t *testing.T) {
	got, err := parseUniformDoc(t, `cluster:
  racks: 2
  hosts_per_rack: 3
  slots: 8
  reduce_slots: 2
  nic_gbps: 2.5
  oversubscription: 5
  tiers: [{kind: hdd, read_mb_s: 100, write_mb_s: 80}]
`)
	if err != nil {
		t.Fatal(err)
	}
	want := UniformSpec{Racks: 2, HostsPerRack: 3, Slots: 8, ReduceSlots: 2, NICBps: 2.5e9 / 8, Oversubscription: 5,
		Tiers: []Tier{{Kind: HDD, ReadBps: 100e6, WriteBps: 80e6}}}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("got %+v, want %+v", *got, want)
	}
}

func TestParseUniformErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"no racks", "cluster: {hosts_per_rack: 2}\n", `c.yaml:1: cluster: missing field "racks"`},
		{"no hosts", "x: 1\ncluster:\n  racks: 2\n", `c.yaml:3: cluster: missing field "hosts_per_rack"`},
		{"not a mapping", "cluster: 3\n", "c.yaml:1: cluster:"},
		{"unknown field", "cluster:\n  racks: 2\n  hosts_per_rack: 2\n  slot: 4\n", `c.yaml:4: cluster: unknown field "slot"`},
		{"zero racks", "cluster:\n  racks: 0\n  hosts_per_rack: 2\n", "c.yaml:2: cluster: racks must be positive"},
		{"negative hosts", "cluster:\n  racks: 1\n  hosts_per_rack: -2\n", "c.yaml:3: cluster: hosts_per_rack must be positive"},
		{"fractional racks", "cluster:\n  racks: 1.5\n  hosts_per_rack: 2\n", "c.yaml:2: cluster: racks:"},
		{"too many hosts", "cluster:\n  racks: 1000\n  hosts_per_rack: 1000\n", "c.yaml:2: cluster: racks × hosts_per_rack must be at most"},
		{"zero slots", "cluster:\n  racks: 1\n  hosts_per_rack: 2\n  slots: 0\n", "c.yaml:4: cluster: slots must be positive"},
		{"negative reduce slots", "cluster:\n  racks: 1\n  hosts_per_rack: 2\n  reduce_slots: -3\n", "c.yaml:4: cluster: reduce_slots must be between 0 (one pool) and"},
		{"zero nic", "cluster:\n  racks: 1\n  hosts_per_rack: 2\n  nic_gbps: 0\n", "c.yaml:4: cluster: nic_gbps must be positive"},
		{"text nic", "cluster:\n  racks: 1\n  hosts_per_rack: 2\n  nic_gbps: fast\n", "c.yaml:4: cluster: nic_gbps:"},
		{"negative oversubscription", "cluster:\n  racks: 1\n  hosts_per_rack: 2\n  oversubscription: -1\n", "c.yaml:4: cluster: oversubscription must be positive"},
		{"rack links too slow", "cluster:\n  racks: 1\n  hosts_per_rack: 2\n  oversubscription: 1e300\n", "c.yaml:2: cluster: rack link rate (hosts per rack × nic rate / oversubscription) 2.5e-292 bytes/s is outside"},
		{"empty tiers", "cluster:\n  racks: 1\n  hosts_per_rack: 2\n  tiers: []\n", "c.yaml:4: cluster: tiers: the list is empty"},
		{"bad tier", "cluster:\n  racks: 1\n  hosts_per_rack: 2\n  tiers:\n    - {kind: tape, read_mb_s: 1, write_mb_s: 1}\n", `c.yaml:5: cluster tier #1: kind: unknown tier kind "tape"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseUniformDoc(t, tc.src)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}
