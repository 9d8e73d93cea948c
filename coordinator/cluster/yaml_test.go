package cluster

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const exampleTopology = `# two racks, written out
core_gbps: 40
host_defaults:
  slots: 8
  nic_gbps: 10
  tiers:
    - {kind: mem, read_mb_s: 4000, write_mb_s: 2000, capacity_gib: 16}
    - {kind: hdd, read_mb_s: 200, write_mb_s: 160, capacity_gib: 8192}
racks:
  - name: r0
    uplink_gbps: 10
    hosts:
      - name: r0h0
      - name: r0h1
        slots: 4
        nic_gbps: 25
        tiers:
          - {kind: ssd, read_mb_s: 500.5, write_mb_s: 400, capacity_bytes: 1000}
  - name: r1
    oversubscription: 4
    downlink_gbps: 2.5
    host_count: 2
`

func TestParseExample(t *testing.T) {
	topo, err := ParseTopology("topo.yaml", []byte(exampleTopology))
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.Racks) != 2 || len(topo.Hosts) != 4 {
		t.Fatalf("got %d racks, %d hosts", len(topo.Racks), len(topo.Hosts))
	}
	if topo.CoreBps != 5e9 {
		t.Errorf("core = %g bytes/s, want 5e9", topo.CoreBps)
	}
	r0, r1 := topo.Racks[0], topo.Racks[1]
	if r0.UplinkBps != 1.25e9 || r0.DownlinkBps != 1.25e9 {
		t.Errorf("r0 links = %g/%g", r0.UplinkBps, r0.DownlinkBps)
	}
	// r1: two 10 Gbit/s hosts at 4:1 → 5 Gbit/s up; 2.5 Gbit/s down.
	if r1.UplinkBps != 2*1.25e9/4 || r1.DownlinkBps != 2.5e9/8 {
		t.Errorf("r1 links = %g/%g", r1.UplinkBps, r1.DownlinkBps)
	}
	h1 := topo.Hosts[1]
	want := Host{ID: 1, Name: "r0h1", Rack: 0, Slots: 4, NICBps: 25e9 / 8,
		Tiers: []Tier{{Kind: SSD, ReadBps: 500.5e6, WriteBps: 400e6, CapacityBytes: 1000}}}
	if !reflect.DeepEqual(h1, want) {
		t.Errorf("host 1 = %+v, want %+v", h1, want)
	}
	h3 := topo.Hosts[3]
	if h3.Name != "r1h1" || h3.Rack != 1 || h3.Slots != 8 || len(h3.Tiers) != 2 || h3.Tiers[1].CapacityBytes != 8192<<30 {
		t.Errorf("host 3 = %+v", h3)
	}
	roundTrip(t, topo)
}

func TestUniformForm(t *testing.T) {
	src := "uniform: {racks: 20, hosts_per_rack: 30, slots: 8, nic_gbps: 10, oversubscription: 5}\n"
	got, err := ParseTopology("u.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Uniform(UniformSpec{Racks: 20, HostsPerRack: 30, Slots: 8, NICBps: 1.25e9, Oversubscription: 5})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("uniform form differs from Uniform()")
	}
	src = `core_gbps: 100
uniform:
  racks: 2
  hosts_per_rack: 3
  slots: 4
  nic_gbps: 1
  oversubscription: 1
  tiers: [{kind: ssd, read_mb_s: 500, write_mb_s: 400}]
`
	got, err = ParseTopology("u.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got.CoreBps != 12.5e9 || len(got.Hosts) != 6 || len(got.Hosts[5].Tiers) != 1 || got.Racks[1].UplinkBps != 3*1.25e8 {
		t.Errorf("uniform with tiers: %+v", got)
	}
	roundTrip(t, got)
	var buf bytes.Buffer
	if err := WriteTopology(&buf, want); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n > 30 {
		t.Errorf("a uniform 20-rack topology takes %d lines:\n%s", n, buf.String())
	}
}

func roundTrip(t *testing.T, topo *Topology) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTopology(&buf, topo); err != nil {
		t.Fatal(err)
	}
	back, err := ParseTopology("rt.yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(back, topo) {
		t.Fatalf("round trip differs:\nwrote\n%s\ngot %+v\nwant %+v", buf.String(), back, topo)
	}
}

func TestRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	rate := func() float64 {
		switch rng.Intn(3) {
		case 0:
			return float64(1+rng.Intn(100)) * 1.25e8
		case 1:
			return rng.Float64()*1e10 + 1
		}
		return float64(1 + rng.Intn(1e6))
	}
	for iter := 0; iter < 200; iter++ {
		topo := &Topology{}
		if rng.Intn(2) == 0 {
			topo.CoreBps = rate()
		}
		for r := 0; r < 1+rng.Intn(4); r++ {
			rack := Rack{ID: RackID(r), Name: "rack-" + string(rune('a'+r)), UplinkBps: rate(), DownlinkBps: rate()}
			if rng.Intn(2) == 0 {
				rack.Name = "r" + string(rune('0'+r))
				rack.DownlinkBps = rack.UplinkBps
			}
			for h := 0; h < 1+rng.Intn(4); h++ {
				id := HostID(len(topo.Hosts))
				name := rack.Name + "h" + string(rune('0'+h))
				if rng.Intn(5) == 0 {
					name = "x 1:" + name // needs quoting
				}
				host := Host{ID: id, Name: name, Rack: rack.ID, Slots: 1 + rng.Intn(3), NICBps: 1.25e9, Tiers: DefaultTiers()}
				if rng.Intn(3) == 0 {
					host.ReduceSlots = rng.Intn(3)
				}
				if rng.Intn(3) == 0 {
					host.NICBps = rate()
					host.Tiers = []Tier{{Kind: TierKind(rng.Intn(3)), ReadBps: rate(), WriteBps: rate(), CapacityBytes: rng.Int63n(1 << 40)}}
				}
				topo.Hosts = append(topo.Hosts, host)
				rack.Hosts = append(rack.Hosts, id)
			}
			topo.Racks = append(topo.Racks, rack)
		}
		roundTrip(t, topo)
	}
}

// reduce_slots gives hosts a reduce pool of their own: from host_defaults,
// a rack's defaults or the host, which may set it back to 0 (one pool);
// the writer keeps it, and TotalSlots counts both pools.
func TestReduceSlots(t *testing.T) {
	src := `host_defaults: {slots: 12, reduce_slots: 3, nic_gbps: 1}
racks:
  - name: r0
    uplink_gbps: 1
    hosts:
      - name: a
      - {name: b, reduce_slots: 0}
      - {name: c, slots: 4, reduce_slots: 1}
  - {name: r1, uplink_gbps: 1, host_count: 1, host_defaults: {slots: 2, reduce_slots: 5}}
`
	topo, err := ParseTopology("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]int
	for _, h := range topo.Hosts {
		got = append(got, [2]int{h.Slots, h.ReduceSlots})
	}
	if want := [][2]int{{12, 3}, {12, 0}, {4, 1}, {2, 5}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("map/reduce slots %v, want %v", got, want)
	}
	if n := topo.TotalSlots(); n != 15+12+5+7 {
		t.Errorf("TotalSlots = %d, want 39", n)
	}
	roundTrip(t, topo)
	var buf bytes.Buffer
	if err := WriteTopology(&buf, topo); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "reduce_slots: 3") || !strings.Contains(buf.String(), "reduce_slots: 0") {
		t.Errorf("written without its reduce slots:\n%s", buf.String())
	}
	u, err := ParseTopology("u.yaml", []byte("uniform: {racks: 1, hosts_per_rack: 2, slots: 12, reduce_slots: 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if h := u.Hosts[1]; h.Slots != 12 || h.ReduceSlots != 3 || u.TotalSlots() != 30 {
		t.Errorf("uniform host %+v, total %d", h, u.TotalSlots())
	}
	// a one-pool topology is written without the key
	buf.Reset()
	one, _ := Uniform(DefaultUniform())
	if err := WriteTopology(&buf, one); err != nil || strings.Contains(buf.String(), "reduce_slots") {
		t.Errorf("one pool written with reduce_slots (err %v):\n%s", err, buf.String())
	}
	bad := topo.Hosts[2]
	bad.ReduceSlots = -1
	broken := &Topology{Racks: topo.Racks, Hosts: append(append([]Host(nil), topo.Hosts[:2]...), append([]Host{bad}, topo.Hosts[3:]...)...)}
	if err := broken.Validate(); err == nil || !strings.Contains(err.Error(), `host "c": reduce slots must be between 0`) {
		t.Errorf("Validate of negative reduce slots: %v", err)
	}
	if _, err := Uniform(UniformSpec{Racks: 1, HostsPerRack: 1, Slots: 1, ReduceSlots: -2, NICBps: 1e9, Oversubscription: 1}); err == nil || !strings.Contains(err.Error(), "reduce slots per host") {
		t.Errorf("Uniform with negative reduce slots: %v", err)
	}
}

func TestLoadTopology(t *testing.T) {
	path := filepath.Join(t.TempDir(), "topo.yaml")
	if err := os.WriteFile(path, []byte(exampleTopology), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTopology(path); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTopology(path + ".missing"); err == nil {
		t.Error("loading a missing file succeeded")
	}
}

func TestTopologyErrors(t *testing.T) {
	const head = "host_defaults: {slots: 8, nic_gbps: 10}\nracks:\n"
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "t.yaml: file is empty"},
		{"syntax", "racks: [\n", "t.yaml:1: YAML syntax"},
		{"not a mapping", "[1, 2]\n", "t.yaml:1: the top level must be a mapping"},
		{"unknown top", "rakcs: []\n", `t.yaml:1: unknown field "rakcs"`},
		{"no racks", "core_gbps: 1\n", `t.yaml:1: missing field "racks"`},
		{"racks empty", "racks: []\n", "t.yaml:1: racks: the list is empty"},
		{"core negative", "core_gbps: -1\nracks: []\n", "t.yaml:1: core_gbps must not be negative"},
		{"core text", "core_gbps: fast\n", `t.yaml:1: core_gbps: want a decimal number, got "fast"`},
		{"slots zero", head + "  - name: r1\n    uplink_gbps: 10\n    hosts:\n      - name: r1h0\n        slots: 0\n",
			`t.yaml:7: rack "r1" host "r1h0": slots must be positive`},
		{"slots text", head + "  - name: r1\n    uplink_gbps: 10\n    hosts:\n      - {name: r1h0, slots: many}\n",
			`t.yaml:6: rack "r1" host "r1h0": slots: want an integer, got "many"`},
		{"default slots bad", "host_defaults: {slots: -2}\nracks: []\n", "t.yaml:1: host_defaults: slots must be positive"},
		{"reduce slots negative", head + "  - name: r1\n    uplink_gbps: 10\n    hosts:\n      - name: r1h0\n        reduce_slots: -1\n",
			`t.yaml:7: rack "r1" host "r1h0": reduce_slots must be between 0 (one pool) and`},
		{"reduce slots text", "host_defaults: {slots: 1, reduce_slots: some}\nracks: []\n", `t.yaml:1: host_defaults: reduce_slots: want an integer`},
		{"unknown host field", head + "  - name: r1\n    uplink_gbps: 10\n    hosts:\n      - name: r1h0\n        slot: 3\n",
			`t.yaml:7: rack "r1" host "r1h0": unknown field "slot"`},
		{"unknown rack field", head + "  - name: r1\n    uplink: 10\n", `t.yaml:4: rack "r1": unknown field "uplink"`},
		{"rack without name", head + "  - uplink_gbps: 10\n    host_count: 1\n", `t.yaml:3: rack #1: missing field "name"`},
		{"host without name", head + "  - name: r1\n    uplink_gbps: 10\n    hosts:\n      - slots: 1\n", `t.yaml:6: rack "r1" host #1: missing field "name"`},
		{"no uplink", head + "  - {name: r1, host_count: 2}\n", `t.yaml:3: rack "r1": missing field "uplink_gbps"`},
		{"both uplinks", head + "  - {name: r1, host_count: 2, uplink_gbps: 1, oversubscription: 2}\n", `t.yaml:3: rack "r1": give uplink_gbps or oversubscription`},
		{"bad oversubscription", head + "  - name: r1\n    host_count: 2\n    oversubscription: 0\n", `t.yaml:5: rack "r1": oversubscription must be positive`},
		{"no hosts", head + "  - {name: r1, uplink_gbps: 1}\n", `t.yaml:3: rack "r1": missing field "hosts"`},
		{"hosts and count", head + "  - name: r1\n    uplink_gbps: 1\n    host_count: 1\n    hosts: [{name: a}]\n", `t.yaml:5: rack "r1": give hosts or host_count`},
		{"huge count", head + "  - name: r1\n    uplink_gbps: 1\n    host_count: 1e12\n", `t.yaml:5: rack "r1": host_count must be between`},
		{"dup rack", head + "  - {name: r1, uplink_gbps: 1, host_count: 1}\n  - {name: r1, uplink_gbps: 1, host_count: 1}\n", `t.yaml:4: rack "r1": rack name "r1" is used twice (first at line 3)`},
		{"empty rack name", head + "  - {name: \"\", uplink_gbps: 1, host_count: 1}\n", `t.yaml:3: rack #1: a rack needs a name (got "")`},
		{"blank host name", head + "  - name: r1\n    uplink_gbps: 1\n    hosts:\n      - name: \" \"\n", `t.yaml:6: rack "r1": a host needs a name (got " ")`},
		{"dup host", head + "  - {name: r1, uplink_gbps: 1, host_count: 1}\n  - name: r2\n    uplink_gbps: 1\n    hosts:\n      - name: r1h0\n", `t.yaml:7: rack "r2": host name "r1h0" is used twice (first at line 3)`},
		{"no slots", "racks:\n  - name: r1\n    uplink_gbps: 1\n    hosts:\n      - {name: a, nic_gbps: 1}\n", `t.yaml:5: rack "r1" host "a": missing field "slots"`},
		{"no nic", "racks:\n  - name: r1\n    uplink_gbps: 1\n    host_count: 3\n    host_defaults: {slots: 1}\n", `t.yaml:4: rack "r1" host "r1h0": missing field "nic_gbps"`},
		{"tier kind", head + "  - name: r1\n    uplink_gbps: 1\n    hosts:\n      - name: a\n        tiers:\n          - {kind: tape, read_mb_s: 1, write_mb_s: 1}\n",
			`t.yaml:8: rack "r1" host "a" tier #1: kind: unknown tier kind "tape"`},
		{"tier rate", head + "  - name: r1\n    uplink_gbps: 1\n    hosts:\n      - name: a\n        tiers:\n          - {kind: ssd, read_mb_s: 0, write_mb_s: 1}\n",
			`t.yaml:8: rack "r1" host "a" tier ssd: read_mb_s must be positive`},
		{"tier missing rate", "host_defaults:\n  tiers:\n    - {kind: ssd, read_mb_s: 1}\nracks: []\n", `t.yaml:3: host_defaults tier #1: missing field "write_mb_s"`},
		{"tier twice", "host_defaults:\n  tiers:\n    - {kind: ssd, read_mb_s: 1, write_mb_s: 1}\n    - {kind: ssd, read_mb_s: 1, write_mb_s: 1}\nracks: []\n", `t.yaml:4: host_defaults tier ssd: tier ssd is listed twice (first at line 3)`},
		{"tier capacity both", "host_defaults:\n  tiers:\n    - {kind: ssd, read_mb_s: 1, write_mb_s: 1, capacity_gib: 1, capacity_bytes: 1}\nracks: []\n", `t.yaml:3: host_defaults tier ssd: give capacity_gib or capacity_bytes`},
		{"tiers empty", "host_defaults:\n  tiers: []\nracks: []\n", "t.yaml:2: host_defaults: tiers: the list is empty"},
		{"tiers not list", "host_defaults:\n  tiers: mem\nracks: []\n", `t.yaml:2: host_defaults: tiers: want a list, got "mem"`},
		{"uniform and racks", "uniform: {racks: 1}\nracks: []\n", "t.yaml:2: racks cannot be combined with uniform"},
		{"uniform missing", "uniform: {racks: 1, slots: 1, nic_gbps: 1}\n", `t.yaml:1: uniform: missing field "hosts_per_rack"`},
		{"uniform zero racks", "uniform:\n  racks: 0\n  hosts_per_rack: 2\n  slots: 1\n  nic_gbps: 1\n  oversubscription: 1\n", "t.yaml:2: uniform: racks must be positive"},
		{"uniform huge", "uniform:\n  racks: 100000\n  hosts_per_rack: 100000\n  slots: 1\n  nic_gbps: 1\n  oversubscription: 1\n", "t.yaml:2: uniform: racks × hosts_per_rack must be at most"},
		{"uniform unknown", "uniform:\n  rack: 1\n", `t.yaml:2: uniform: unknown field "rack"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTopology("t.yaml", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}

func FuzzParseTopology(f *testing.F) {
	f.Add([]byte(exampleTopology))
	f.Add([]byte("uniform: {racks: 2, hosts_per_rack: 3, slots: 8, nic_gbps: 10, oversubscription: 5}\n"))
	f.Add([]byte("rack_defaults: {oversubscription: 2}\nhost_defaults: &d {slots: 1, nic_gbps: 1}\nracks:\n  - {name: a, host_count: 2, host_defaults: {<<: *d, slots: 3}}\n"))
	f.Add([]byte("racks:\n  - name: r1\n    uplink_gbps: 1e1\n    hosts: [{name: \"x:y\", slots: 2, nic_gbps: 0.5}]\n"))
	f.Add([]byte("racks: [\n"))
	f.Add([]byte("racks: &a [*a]\n"))
	f.Add([]byte("host_defaults: {slots: 0}\nracks: []\n"))
	f.Add([]byte("core_gbps: 1e999\n"))
	f.Add([]byte("uniform: {racks: 2, hosts_per_rack: 3, slots: 8, nic_gbps: 1e-300, oversubscription: 5}\n"))
	f.Add([]byte("racks:\n  - {name: r1, uplink_gbps: 1e-12, host_count: 2, host_defaults: {slots: 2, nic_gbps: 1}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		topo, err := ParseTopology("f.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteTopology(&buf, topo); err != nil {
			t.Fatalf("writing a parsed topology: %v", err)
		}
		back, err := ParseTopology("rt.yaml", buf.Bytes())
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(back, topo) {
			t.Fatalf("round trip differs:\n%s", buf.String())
		}
	})
}
