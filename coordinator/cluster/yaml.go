package cluster

// The topology file format. Rates are decimal units: *_gbps is 10^9 bits
// per second, *_mb_s is 10^6 bytes per second; capacities are capacity_gib
// (2^30 bytes) or capacity_bytes.
//
//	core_gbps: 0                 # optional; 0 (the default) is a non-blocking core
//	host_defaults:               # optional; any host field but name
//	  slots: 8
//	  reduce_slots: 2            # optional; a reduce pool of its own (slots are then map slots)
//	  nic_gbps: 10
//	  tiers:                     # optional everywhere; default cluster.DefaultTiers()
//	    - {kind: mem, read_mb_s: 4000, write_mb_s: 2000, capacity_gib: 16}
//	    - {kind: hdd, read_mb_s: 200, write_mb_s: 160, capacity_gib: 8192}
//	rack_defaults:               # optional; any rack link field
//	  oversubscription: 4
//	racks:
//	  - name: r0
//	    uplink_gbps: 10          # or oversubscription: sum of the rack's host NIC rates / uplink
//	    downlink_gbps: 10        # optional; defaults to the uplink rate
//	    host_defaults: {slots: 4}  # optional; overrides the file's host_defaults in this rack
//	    hosts:
//	      - name: r0h0
//	        slots: 8
//	      - {name: r0h1, nic_gbps: 25}
//	  - {name: r1, host_count: 30}   # hosts r1h0 … r1h29, all with the defaults
//
// Instead of racks, a regular cluster can be generated (see Uniform and
// ParseUniform):
//
//	uniform: {racks: 20, hosts_per_rack: 30, slots: 8, nic_gbps: 10, oversubscription: 5}
//
// reduce_slots (default 0: one pool of slots per host, for tasks of every
// kind) gives each host a second pool, as Hadoop 1.x's task trackers have:
// map tasks then take the slots, reduce and generic tasks the reduce_slots
// (Shadow's hosts: slots: 12, reduce_slots: 3). A host overrides a default
// reduce_slots with its own, 0 included.
//
// with an optional tiers list inside uniform. Only racks and hosts_per_rack
// are required; the rest default to DefaultUniform. Host IDs and rack IDs are
// numbered in file order. Unknown fields are errors, and every error names
// the file, the line and the field.

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/racklab/racklab/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

const (
	gbpsPow10 = 9 // *_gbps fields hold 10^9 bits/s; the model keeps bytes/s
	mbsPow10  = 6 // *_mb_s fields hold 10^6 bytes/s
	gib       = 1 << 30
	gbpsBytes = 1e9 / 8 // bytes/s in a *_gbps unit
	mbsBytes  = 1e6     // bytes/s in a *_mb_s unit
)

// rateField checks a rate field (read as bytes/s) against MinRateBps and
// MaxRateBps, saying the limits in the field's unit (unit bytes/s).
func rateField(m *yamlfile.Map, key string, bps, unit float64) bool {
	if !(bps > 0) {
		m.Fail(key, "%s must be positive", key)
		return false
	}
	if err := checkRate(key, bps); err != nil {
		m.Fail(key, "%s must be between %g and %g (got %g)", key, MinRateBps/unit, MaxRateBps/unit, bps/unit)
		return false
	}
	return true
}

// LoadTopology reads a topology file.
func LoadTopology(path string) (*Topology, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTopology(path, data)
}

// ParseTopology reads a topology from YAML text; name is the file name used
// in error messages.
func ParseTopology(name string, data []byte) (*Topology, error) {
	d, top, err := yamlfile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	t := parseTopology(d, top)
	if err := d.Err(); err != nil {
		return nil, err
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// hostProfile is the fields a host may inherit.
type hostProfile struct {
	slots, reduceSlots int
	nic                float64
	tiers              []Tier
	hasSlots, hasNIC   bool
	hasTiers           bool
	slotsLine, nicLine int
}

// linkSpec is a rack's link fields, given or inherited.
type linkSpec struct {
	up, down, over       float64
	hasUp, hasDown, hasO bool
}

func parseTopology(d *yamlfile.Decoder, top *yaml.Node) *Topology {
	m := d.Map(top, "")
	m.Known("core_gbps", "host_defaults", "rack_defaults", "uniform", "racks")
	t := &Topology{}
	if m.Has("core_gbps") {
		t.CoreBps = m.Scaled("core_gbps", gbpsPow10) / 8
		if t.CoreBps < 0 {
			m.Fail("core_gbps", "core_gbps must not be negative")
		} else if t.CoreBps != 0 {
			rateField(m, "core_gbps", t.CoreBps, gbpsBytes)
		}
	}
	if m.Has("uniform") {
		for _, k := range []string{"racks", "host_defaults", "rack_defaults"} {
			if m.Has(k) {
				m.Fail(k, "%s cannot be combined with uniform", k)
				return t
			}
		}
		n := m.Node("uniform")
		spec := ParseUniform(d, n, "uniform")
		if d.Err() != nil {
			return t
		}
		u, err := Uniform(*spec)
		if err != nil {
			d.Fail(n.Line, "uniform", "%v", err)
			return t
		}
		u.CoreBps = t.CoreBps
		return u
	}
	m.Require("racks")
	var defaults hostProfile
	if n := m.Node("host_defaults"); n != nil {
		hm := d.Map(n, "host_defaults")
		hm.Known("slots", "reduce_slots", "nic_gbps", "tiers")
		parseHostFields(d, hm, &defaults)
	}
	var rackDefaults linkSpec
	if n := m.Node("rack_defaults"); n != nil {
		rm := d.Map(n, "rack_defaults")
		rm.Known("uplink_gbps", "downlink_gbps", "oversubscription")
		rackDefaults = parseLink(rm)
	}
	racks := m.Seq("racks")
	if d.Err() != nil {
		return t
	}
	if len(racks) == 0 {
		m.Fail("racks", "racks: the list is empty")
		return t
	}
	rackLines := map[string]int{}
	hostLines := map[string]int{}
	for i, rn := range racks {
		parseRack(d, t, rn, i, &defaults, &rackDefaults, rackLines, hostLines)
		if d.Err() != nil {
			return t
		}
	}
	return t
}

func parseRack(d *yamlfile.Decoder, t *Topology, n *yaml.Node, i int, fileDefaults *hostProfile, rackDefaults *linkSpec, rackLines, hostLines map[string]int) {
	m := d.Map(n, fmt.Sprintf("rack #%d", i+1))
	name := m.Str("name")
	if name != "" {
		m.Where = fmt.Sprintf("rack %q", name)
	}
	m.Known("name", "uplink_gbps", "downlink_gbps", "oversubscription", "host_defaults", "hosts", "host_count")
	m.Require("name")
	if d.Err() != nil {
		return
	}
	if strings.TrimSpace(name) == "" {
		m.Fail("name", "a rack needs a name (got %q)", name)
		return
	}
	if first, dup := rackLines[name]; dup {
		m.Fail("name", "rack name %q is used twice (first at line %d)", name, first)
		return
	}
	rackLines[name] = m.LineOf("name")
	rack := Rack{ID: RackID(len(t.Racks)), Name: name}

	defaults := *fileDefaults
	if hn := m.Node("host_defaults"); hn != nil {
		hm := d.Map(hn, m.Where+" host_defaults")
		hm.Known("slots", "reduce_slots", "nic_gbps", "tiers")
		parseHostFields(d, hm, &defaults)
	}
	link := parseLink(m)
	if d.Err() != nil {
		return
	}

	switch {
	case m.Has("hosts") && m.Has("host_count"):
		m.Fail("host_count", "give hosts or host_count, not both")
		return
	case m.Has("host_count"):
		c := m.Int("host_count")
		if d.Err() != nil {
			return
		}
		if c <= 0 || c > MaxHosts || len(t.Hosts)+int(c) > MaxHosts {
			m.Fail("host_count", "host_count must be between 1 and %d for the whole file (got %d)", MaxHosts, c)
			return
		}
		line := m.LineOf("host_count")
		for j := 0; j < int(c); j++ {
			hname := name + "h" + strconv.Itoa(j)
			h := hostFrom(d, &defaults, m.Where+fmt.Sprintf(" host %q", hname), line)
			addHost(d, t, &rack, h, hname, line, hostLines)
			if d.Err() != nil {
				return
			}
		}
	case m.Has("hosts"):
		hosts := m.Seq("hosts")
		if d.Err() != nil {
			return
		}
		if len(hosts) == 0 {
			m.Fail("hosts", "hosts: the list is empty")
			return
		}
		for j, hn := range hosts {
			hm := d.Map(hn, fmt.Sprintf("%s host #%d", m.Where, j+1))
			hname := hm.Str("name")
			if hname != "" {
				hm.Where = fmt.Sprintf("%s host %q", m.Where, hname)
			}
			hm.Known("name", "slots", "reduce_slots", "nic_gbps", "tiers")
			hm.Require("name")
			p := defaults
			parseHostFields(d, hm, &p)
			if d.Err() != nil {
				return
			}
			if len(t.Hosts) >= MaxHosts {
				hm.Fail("", "too many hosts (at most %d)", MaxHosts)
				return
			}
			h := hostFrom(d, &p, hm.Where, hm.Line)
			addHost(d, t, &rack, h, hname, hm.LineOf("name"), hostLines)
			if d.Err() != nil {
				return
			}
		}
	default:
		m.Fail("", "missing field \"hosts\" (or host_count)")
		return
	}

	// Links: the rack's own fields, else rack_defaults.
	if !link.hasUp && !link.hasO {
		link.up, link.hasUp = rackDefaults.up, rackDefaults.hasUp
		link.over, link.hasO = rackDefaults.over, rackDefaults.hasO
	}
	if !link.hasDown {
		link.down, link.hasDown = rackDefaults.down, rackDefaults.hasDown
	}
	switch {
	case link.hasUp:
		rack.UplinkBps = link.up
	case link.hasO:
		var sum float64
		for _, h := range rack.Hosts {
			sum += t.Hosts[h].NICBps
		}
		rack.UplinkBps = sum / link.over
	default:
		m.Fail("", "missing field \"uplink_gbps\" (or oversubscription; here or in rack_defaults)")
		return
	}
	rack.DownlinkBps = rack.UplinkBps
	if link.hasDown {
		rack.DownlinkBps = link.down
	}
	if err := checkRate("uplink rate", rack.UplinkBps); err != nil {
		m.Fail("", "%v", err)
		return
	}
	if err := checkRate("downlink rate", rack.DownlinkBps); err != nil {
		m.Fail("", "%v", err)
		return
	}
	t.Racks = append(t.Racks, rack)
}

// parseLink reads uplink_gbps, downlink_gbps and oversubscription.
func parseLink(m *yamlfile.Map) linkSpec {
	var l linkSpec
	if m.Has("uplink_gbps") && m.Has("oversubscription") {
		m.Fail("oversubscription", "give uplink_gbps or oversubscription, not both")
		return l
	}
	if m.Has("uplink_gbps") {
		l.up, l.hasUp = m.Scaled("uplink_gbps", gbpsPow10)/8, true
		if !rateField(m, "uplink_gbps", l.up, gbpsBytes) {
		}
	}
	if m.Has("downlink_gbps") {
		l.down, l.hasDown = m.Scaled("downlink_gbps", gbpsPow10)/8, true
		if !rateField(m, "downlink_gbps", l.down, gbpsBytes) {
		}
	}
	if m.Has("oversubscription") {
		l.over, l.hasO = m.Float("oversubscription"), true
		if !(l.over > 0) {
			m.Fail("oversubscription", "oversubscription must be positive")
		}
	}
	return l
}

// parseHostFields overlays the host fields present in m onto p.
func parseHostFields(d *yamlfile.Decoder, m *yamlfile.Map, p *hostProfile) {
	if m.Has("slots") {
		s := m.Int("slots")
		if d.Err() != nil {
			return
		}
		if s <= 0 || s > MaxSlots {
			m.Fail("slots", "slots must be positive (and at most %d); got %d", MaxSlots, s)
			return
		}
		p.slots, p.hasSlots, p.slotsLine = int(s), true, m.LineOf("slots")
	}
	if m.Has("reduce_slots") {
		s := m.Int("reduce_slots")
		if d.Err() != nil {
			return
		}
		if s < 0 || s > MaxSlots {
			m.Fail("reduce_slots", "reduce_slots must be between 0 (one pool) and %d; got %d", MaxSlots, s)
			return
		}
		p.reduceSlots = int(s)
	}
	if m.Has("nic_gbps") {
		v := m.Scaled("nic_gbps", gbpsPow10) / 8
		if d.Err() != nil {
			return
		}
		if !rateField(m, "nic_gbps", v, gbpsBytes) {
			return
		}
		p.nic, p.hasNIC, p.nicLine = v, true, m.LineOf("nic_gbps")
	}
	if m.Has("tiers") {
		p.tiers = parseTiers(d, m.Seq("tiers"), m.Where, m.LineOf("tiers"))
		p.hasTiers = true
	}
}

func parseTiers(d *yamlfile.Decoder, items []*yaml.Node, where string, line int) []Tier {
	if d.Err() != nil {
		return nil
	}
	if len(items) == 0 {
		d.Fail(line, where, "tiers: the list is empty")
		return nil
	}
	var seen [NumTierKinds]int
	tiers := make([]Tier, 0, len(items))
	for i, n := range items {
		m := d.Map(n, fmt.Sprintf("%s tier #%d", where, i+1))
		m.Known("kind", "read_mb_s", "write_mb_s", "capacity_gib", "capacity_bytes")
		m.Require("kind", "read_mb_s", "write_mb_s")
		if d.Err() != nil {
			return nil
		}
		kind, err := ParseTierKind(m.Str("kind"))
		if err != nil {
			m.Fail("kind", "kind: %v", err)
			return nil
		}
		m.Where = fmt.Sprintf("%s tier %s", where, kind)
		if first := seen[kind]; first > 0 {
			m.Fail("kind", "tier %s is listed twice (first at line %d)", kind, first)
			return nil
		}
		seen[kind] = m.LineOf("kind")
		tr := Tier{Kind: kind}
		tr.ReadBps = m.Scaled("read_mb_s", mbsPow10)
		tr.WriteBps = m.Scaled("write_mb_s", mbsPow10)
		if d.Err() != nil {
			return nil
		}
		if !rateField(m, "read_mb_s", tr.ReadBps, mbsBytes) {
		}
		if !rateField(m, "write_mb_s", tr.WriteBps, mbsBytes) {
		}
		switch {
		case m.Has("capacity_gib") && m.Has("capacity_bytes"):
			m.Fail("capacity_bytes", "give capacity_gib or capacity_bytes, not both")
		case m.Has("capacity_gib"):
			g := m.Float("capacity_gib")
			if !(g >= 0 && g*gib <= float64(MaxCapacityBytes)) {
				m.Fail("capacity_gib", "capacity_gib must be between 0 and 2^32 (got %g)", g)
			}
			tr.CapacityBytes = int64(math.Round(g * gib))
			if g > 0 && tr.CapacityBytes == 0 {
				// 0 bytes is an unbounded tier: a tiny capacity must
				// not become that
				m.Fail("capacity_gib", "capacity_gib %g is less than a byte (leave the capacity out for an unbounded tier)", g)
			}
		case m.Has("capacity_bytes"):
			tr.CapacityBytes = m.Int("capacity_bytes")
			if tr.CapacityBytes < 0 || tr.CapacityBytes > MaxCapacityBytes {
				m.Fail("capacity_bytes", "capacity_bytes must be between 0 and 2^62 (got %d)", tr.CapacityBytes)
			}
		}
		if d.Err() != nil {
			return nil
		}
		tiers = append(tiers, tr)
	}
	return tiers
}

// hostFrom completes a host from its profile, or records what is missing.
func hostFrom(d *yamlfile.Decoder, p *hostProfile, where string, line int) Host {
	switch {
	case !p.hasSlots:
		d.Fail(line, where, "missing field \"slots\" (here or in host_defaults)")
	case !p.hasNIC:
		d.Fail(line, where, "missing field \"nic_gbps\" (here or in host_defaults)")
	}
	tiers := p.tiers
	if !p.hasTiers {
		tiers = DefaultTiers()
	} else {
		tiers = append([]Tier(nil), tiers...)
	}
	return Host{Slots: p.slots, ReduceSlots: p.reduceSlots, NICBps: p.nic, Tiers: tiers}
}

func addHost(d *yamlfile.Decoder, t *Topology, r *Rack, h Host, name string, line int, hostLines map[string]int) {
	if d.Err() != nil {
		return
	}
	if strings.TrimSpace(name) == "" {
		d.Fail(line, fmt.Sprintf("rack %q", r.Name), "a host needs a name (got %q)", name)
		return
	}
	if first, dup := hostLines[name]; dup {
		d.Fail(line, fmt.Sprintf("rack %q", r.Name), "host name %q is used twice (first at line %d)", name, first)
		return
	}
	hostLines[name] = line
	h.ID, h.Name, h.Rack = HostID(len(t.Hosts)), name, r.ID
	t.Hosts = append(t.Hosts, h)
	r.Hosts = append(r.Hosts, h.ID)
}

// ParseUniform reads a uniform cluster's fields (racks, hosts_per_rack,
// slots, reduce_slots, nic_gbps, oversubscription, tiers) from mapping n: a topology
// file's uniform, a campaign's cluster. racks and hosts_per_rack are
// required; the other fields default to DefaultUniform's. where names the
// mapping in error messages. Problems are recorded in d, and the result is
// then nil.
func ParseUniform(d *yamlfile.Decoder, n *yaml.Node, where string) *UniformSpec {
	m := d.Map(n, where)
	m.Known("racks", "hosts_per_rack", "slots", "reduce_slots", "nic_gbps", "oversubscription", "tiers")
	m.Require("racks", "hosts_per_rack")
	racks, per := m.Int("racks"), m.Int("hosts_per_rack")
	if d.Err() != nil {
		return nil
	}
	if racks <= 0 {
		m.Fail("racks", "racks must be positive")
		return nil
	}
	if per <= 0 {
		m.Fail("hosts_per_rack", "hosts_per_rack must be positive")
		return nil
	}
	if racks > MaxHosts || per > MaxHosts || racks*per > MaxHosts {
		m.Fail("racks", "racks × hosts_per_rack must be at most %d (got %d × %d)", MaxHosts, racks, per)
		return nil
	}
	spec := DefaultUniform()
	spec.Racks, spec.HostsPerRack = int(racks), int(per)
	var p hostProfile
	parseHostFields(d, m, &p)
	if m.Has("oversubscription") {
		spec.Oversubscription = m.Float("oversubscription")
		if d.Err() == nil && !(spec.Oversubscription > 0) {
			m.Fail("oversubscription", "oversubscription must be positive")
		}
	}
	if d.Err() != nil {
		return nil
	}
	if p.hasSlots {
		spec.Slots = p.slots
	}
	spec.ReduceSlots = p.reduceSlots
	if p.hasNIC {
		spec.NICBps = p.nic
	}
	if p.hasTiers {
		spec.Tiers = p.tiers
	}
	// the rates derived from the fields (a rack link is the NICs over the
	// oversubscription) must be within the limits too: said here, with
	// the line
	if _, err := Uniform(spec); err != nil {
		m.Fail("", "%v", err)
		return nil
	}
	return &spec
}

// WriteTopology writes t in the format ParseTopology reads. Hosts that share
// the most common slots, reduce slots, NIC rate and tiers get them from host_defaults, and
// a rack whose hosts are all default and named <rack>h0, <rack>h1, … is
// written with host_count. Hosts are written rack by rack, so a topology
// whose host IDs are not grouped by rack reads back renumbered.
func WriteTopology(w io.Writer, t *Topology) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("cannot write an invalid topology: %w", err)
	}
	e := yamlfile.NewEmitter(w)
	if t.CoreBps != 0 {
		e.Raw("core_gbps: ")
		e.Scaled(t.CoreBps*8, gbpsPow10)
		e.Raw("\n")
	}
	// The most common host profile becomes host_defaults.
	count := map[string]int{}
	best, bestKey := -1, ""
	keys := make([]string, len(t.Hosts))
	for i := range t.Hosts {
		k := profileKey(&t.Hosts[i])
		keys[i] = k
		count[k]++
		if count[k] > best {
			best, bestKey = count[k], k
		}
	}
	var def *Host
	for i := range t.Hosts {
		if keys[i] == bestKey {
			def = &t.Hosts[i]
			break
		}
	}
	e.Raw("host_defaults:\n  slots: ")
	e.Int(int64(def.Slots))
	if def.ReduceSlots != 0 {
		e.Raw("\n  reduce_slots: ")
		e.Int(int64(def.ReduceSlots))
	}
	e.Raw("\n  nic_gbps: ")
	e.Scaled(def.NICBps*8, gbpsPow10)
	e.Raw("\n  tiers:\n")
	for _, tr := range def.Tiers {
		e.Raw("    - ")
		writeTier(e, tr)
		e.Raw("\n")
	}
	e.Raw("racks:\n")
	for ri := range t.Racks {
		r := &t.Racks[ri]
		compact := true
		for j, h := range r.Hosts {
			if keys[h] != bestKey || t.Hosts[h].Name != r.Name+"h"+strconv.Itoa(j) {
				compact = false
				break
			}
		}
		if compact {
			e.Raw("  - {name: ")
			e.Str(r.Name)
			writeLinks(e, r, ", ")
			e.Raw(", host_count: ")
			e.Int(int64(len(r.Hosts)))
			e.Raw("}\n")
			continue
		}
		e.Raw("  - name: ")
		e.Str(r.Name)
		writeLinks(e, r, "\n    ")
		e.Raw("\n    hosts:\n")
		for _, hid := range r.Hosts {
			h := &t.Hosts[hid]
			e.Raw("      - {name: ")
			e.Str(h.Name)
			if h.Slots != def.Slots {
				e.Raw(", slots: ")
				e.Int(int64(h.Slots))
			}
			if h.ReduceSlots != def.ReduceSlots {
				e.Raw(", reduce_slots: ")
				e.Int(int64(h.ReduceSlots))
			}
			if h.NICBps != def.NICBps {
				e.Raw(", nic_gbps: ")
				e.Scaled(h.NICBps*8, gbpsPow10)
			}
			if tiersKey(h.Tiers) != tiersKey(def.Tiers) {
				e.Raw(", tiers: [")
				for i, tr := range h.Tiers {
					if i > 0 {
						e.Raw(", ")
					}
					writeTier(e, tr)
				}
				e.Raw("]")
			}
			e.Raw("}\n")
		}
	}
	return e.Flush()
}

// writeLinks writes a rack's uplink_gbps and, when it differs, its
// downlink_gbps, each preceded by sep.
func writeLinks(e *yamlfile.Emitter, r *Rack, sep string) {
	e.Raw(sep)
	e.Raw("uplink_gbps: ")
	e.Scaled(r.UplinkBps*8, gbpsPow10)
	if r.DownlinkBps != r.UplinkBps {
		e.Raw(sep)
		e.Raw("downlink_gbps: ")
		e.Scaled(r.DownlinkBps*8, gbpsPow10)
	}
}

func writeTier(e *yamlfile.Emitter, tr Tier) {
	e.Raw("{kind: ")
	e.Raw(tr.Kind.String())
	e.Raw(", read_mb_s: ")
	e.Scaled(tr.ReadBps, mbsPow10)
	e.Raw(", write_mb_s: ")
	e.Scaled(tr.WriteBps, mbsPow10)
	switch {
	case tr.CapacityBytes == 0:
	case tr.CapacityBytes%gib == 0:
		e.Raw(", capacity_gib: ")
		e.Int(tr.CapacityBytes / gib)
	default:
		e.Raw(", capacity_bytes: ")
		e.Int(tr.CapacityBytes)
	}
	e.Raw("}")
}

func tiersKey(ts []Tier) string {
	var b bytes.Buffer
	for _, t := range ts {
		fmt.Fprintf(&b, "%d/%x/%x/%d;", t.Kind, math.Float64bits(t.ReadBps), math.Float64bits(t.WriteBps), t.CapacityBytes)
	}
	return b.String()
}

func profileKey(h *Host) string {
	return fmt.Sprintf("%d/%d/%x/", h.Slots, h.ReduceSlots, math.Float64bits(h.NICBps)) + tiersKey(h.Tiers)
}
