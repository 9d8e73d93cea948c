package reproduce

import (
	"fmt"
	"slices"

	"github.com/racklab/racklab/bench/campaign"
	"gopkg.in/yaml.v3"
)

// TwinDir is the directory, under a paper's result directory, of the
// simulated twin of its emulated run sets (see Twin).
const TwinDir = "twin"

// localOnlyKeys are the run set keys of an emulated (or lab) cluster that
// the simulator has no use for: it always serves priorities and host
// NICs, and its compute takes no CPU.
var localOnlyKeys = []string{"network", "priorities", "shape_nics", "share_links", "compute", "tcp_congestion", "nats", "credentials", "listen", "member_addr"}

// Twin is the simulated twin of a campaign's emulated runs: each run set
// of mode local, with its cluster, workloads, policies and repetitions,
// run by the simulator instead (max-min sharing, recomputed exactly at
// every flow start and end), so that every emulated run has a simulated
// one of the same run set name, workload, policy and seed to compare with
// (the fidelity table of `bench reproduce all`). Each policy chooses for
// itself in both: nothing is replayed. It returns nil when the campaign
// has no local runs.
//
// The twin's file (its Source, the campaign.yaml of its result directory)
// is the campaign's own with the other run sets, the headlines and the
// sweeps left out and each local run set turned into a sim one; c must
// come from campaign.Load (its paths absolute), whose workloads the twin
// shares.
func Twin(c *campaign.Campaign) (*campaign.Campaign, error) {
	if !slices.ContainsFunc(c.Runs, func(rs campaign.RunSet) bool { return rs.Mode == campaign.ModeLocal }) {
		return nil, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(c.Source, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: its text is not a YAML mapping (%v)", campaignFile(c), err)
	}
	top := doc.Content[0]
	// the run sets kept may use anchors of those left out (shadow's
	// policies: *sweep): every alias becomes a copy of what it names
	if err := resolveAliases(top, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", campaignFile(c), err)
	}
	twinName := c.Name + "-twin"
	var kept []*yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i], top.Content[i+1]
		switch key.Value {
		case "headlines", "sweeps":
			continue
		case "name":
			val.Value = twinName
		case "runs":
			var sets []*yaml.Node
			for _, rs := range val.Content {
				if mappingValue(rs, "mode") != campaign.ModeLocal {
					continue
				}
				simulated(rs)
				sets = append(sets, rs)
			}
			val.Content = sets
		}
		kept = append(kept, key, val)
	}
	top.Content = kept
	doc.HeadComment = ""
	top.HeadComment = fmt.Sprintf("The simulated twin of campaign %s's emulated (local) run sets, written by\n"+
		"'bench reproduce all': each run set of mode local, run by the simulator\n"+
		"(max-min sharing, exact at every flow start and end), so that every\n"+
		"emulated run has a simulated one of the same run set, workload, policy\n"+
		"and seed to compare with. Headlines, sweeps and the other run sets are left out.", c.Name)
	text, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, fmt.Errorf("%s: its twin: %w", campaignFile(c), err)
	}
	t, err := campaign.Parse(campaignFile(c)+" (its simulated twin)", text)
	if err != nil {
		return nil, fmt.Errorf("the simulated twin of %s: %w", campaignFile(c), err)
	}
	// the same workloads, with the paths Load made absolute
	t.TopologyFile, t.Workload, t.Workloads = c.TopologyFile, c.Workload, c.Workloads
	t.Path = c.Path
	return t, nil
}

// simulated turns a local run set's mapping into a sim one.
func simulated(rs *yaml.Node) {
	var out []*yaml.Node
	for i := 0; i+1 < len(rs.Content); i += 2 {
		key, val := rs.Content[i], rs.Content[i+1]
		switch {
		case slices.Contains(localOnlyKeys, key.Value):
			continue
		case key.Value == "mode":
			val.Value = campaign.ModeSim
		}
		out = append(out, key, val)
	}
	out = append(out, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "full_recompute"},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "-1"})
	rs.Content = out
	rs.Style = 0 // block style: a flow mapping's comments do not survive
}

// mappingValue is the scalar value of a key of a mapping node, or "".
func mappingValue(n *yaml.Node, key string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// maxAliasDepth bounds nested aliases (a cyclic document would never
// end).
const maxAliasDepth = 32

// resolveAliases replaces every alias under n by a copy of the node it
// names, without its anchor.
func resolveAliases(n *yaml.Node, depth int) error {
	if depth > maxAliasDepth {
		return fmt.Errorf("aliases nested more than %d deep (a cycle?)", maxAliasDepth)
	}
	for i, c := range n.Content {
		if c.Kind == yaml.AliasNode && c.Alias != nil {
			n.Content[i] = copyNode(c.Alias)
		}
		if err := resolveAliases(n.Content[i], depth+1); err != nil {
			return err
		}
	}
	return nil
}

// copyNode is a deep copy of a node without its anchor.
func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Anchor = ""
	c.Content = nil
	for _, k := range n.Content {
		c.Content = append(c.Content, copyNode(k))
	}
	return &c
}
