package cluster

import (
	"strings"
	"testing"
)

// Rates near zero made every transfer last for ages of simulated time,
// and counts too large for memory crashed the run: each is refused with
// the line, the field and the limit.
func TestTopologyLimits(t *testing.T) {
	const rack = "racks:\n  - name: r1\n    host_count: 2\n    host_defaults: {slots: 2, nic_gbps: 1}\n"
	for _, tc := range []struct{ name, src, want string }{
		{"nic near zero", "racks:\n  - name: r1\n    uplink_gbps: 1\n    host_count: 2\n    host_defaults: {slots: 2, nic_gbps: 1e-300}\n",
			`t.yaml:5: rack "r1" host_defaults: nic_gbps must be between 8e-09 and 8e+06 (got 1e-300)`},
		{"nic huge", "racks:\n  - name: r1\n    uplink_gbps: 1\n    host_count: 2\n    host_defaults: {slots: 2, nic_gbps: 1e9}\n",
			`t.yaml:5: rack "r1" host_defaults: nic_gbps must be between 8e-09 and 8e+06 (got 1e+09)`},
		{"uplink near zero", rack + "    uplink_gbps: 1e-12\n", `t.yaml:5: rack "r1": uplink_gbps must be between 8e-09 and 8e+06 (got 1e-12)`},
		{"downlink near zero", rack + "    uplink_gbps: 1\n    downlink_gbps: 1e-12\n", `t.yaml:6: rack "r1": downlink_gbps must be between 8e-09`},
		{"oversubscription huge", rack + "    oversubscription: 1e300\n", `t.yaml:2: rack "r1": uplink rate 2.5e-292 bytes/s is outside [1, 1e+15] bytes/s`},
		{"core near zero", "core_gbps: 1e-20\n" + rack + "    uplink_gbps: 1\n", `t.yaml:1: core_gbps must be between 8e-09`},
		{"tier read near zero", "host_defaults:\n  tiers:\n    - {kind: ssd, read_mb_s: 1e-9, write_mb_s: 1}\nracks: []\n",
			`t.yaml:3: host_defaults tier ssd: read_mb_s must be between 1e-06 and 1e+09 (got 1e-09)`},
		{"capacity huge", "host_defaults:\n  tiers:\n    - {kind: ssd, read_mb_s: 1, write_mb_s: 1, capacity_bytes: 9223372036854775807}\nracks: []\n",
			`t.yaml:3: host_defaults tier ssd: capacity_bytes must be between 0 and 2^62`},
		{"capacity_gib at 2^33", "host_defaults:\n  tiers:\n    - {kind: ssd, read_mb_s: 1, write_mb_s: 1, capacity_gib: 8589934592}\nracks: []\n",
			`t.yaml:3: host_defaults tier ssd: capacity_gib must be between 0 and 2^32`},
		{"uniform oversubscription tiny", "uniform: {racks: 2, hosts_per_rack: 3, slots: 8, nic_gbps: 10, oversubscription: 1e-300}\n",
			`t.yaml:1: uniform: rack link rate (hosts per rack × nic rate / oversubscription) +Inf bytes/s is outside [1, 1e+15]`},
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

// Uniform is what bench's cluster flags build: it checks the counts
// before allocating hosts.
func TestUniformLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*UniformSpec)
		want string
	}{
		{"hosts", func(s *UniformSpec) { s.Racks, s.HostsPerRack = 1<<20, 1<<20 }, "racks × hosts per rack must be at most 131072"},
		{"slots", func(s *UniformSpec) { s.Slots = 1 << 40 }, "slots per host must be between 1 and 1048576"},
		{"nic", func(s *UniformSpec) { s.NICBps = 1e-9 }, "nic rate 1e-09 bytes/s is outside [1, 1e+15]"},
		{"oversubscription", func(s *UniformSpec) { s.Oversubscription = 1e30 }, "rack link rate (hosts per rack × nic rate / oversubscription) 3.75e-22 bytes/s"},
		{"tier", func(s *UniformSpec) { s.Tiers = []Tier{{Kind: SSD, ReadBps: 1e-3, WriteBps: 1}} }, `host "r0h0": tier ssd read rate 0.001 bytes/s is outside`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultUniform()
			tc.edit(&s)
			_, err := Uniform(s)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}
