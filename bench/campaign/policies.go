package campaign

import (
	"errors"
	"fmt"

	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// parsePolicies reads a run set's policies: each a name (the policy with
// its defaults, labelled by its name) or a mapping {name, label, args}.
// Every spec is built once here, so that a bad arg fails at load time
// with its line, not hours into a campaign.
func parsePolicies(d *yamlfile.Decoder, m *yamlfile.Map, set int) []policy.Spec {
	var specs []policy.Spec
	firstLine := map[string]int{} // label → line of its first use
	for i, n := range m.Seq("policies") {
		where := fmt.Sprintf("runs[%d] policies[%d]", set, i)
		spec, line := parsePolicy(d, n, where)
		if d.Err() != nil {
			return nil
		}
		label := spec.String()
		if first, dup := firstLine[label]; dup {
			d.Fail(line, where, "label %q is used twice (first at line %d): use repetitions for more runs of one policy, or give each its own label", label, first)
			return nil
		}
		firstLine[label] = line
		specs = append(specs, spec)
	}
	if d.Err() == nil && len(specs) == 0 {
		m.Fail("policies", "policies lists none")
	}
	return specs
}

// parsePolicy reads one entry of a policies list and checks it; line is
// where the entry starts.
func parsePolicy(d *yamlfile.Decoder, n *yaml.Node, where string) (spec policy.Spec, line int) {
	line = n.Line
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null":
		spec.Name = n.Value
		if _, err := policy.Build(spec); err != nil {
			d.Fail(line, where, "%v", err)
		}
		return spec, line
	case n.Kind == yaml.MappingNode:
	default:
		d.Fail(line, where, "want a policy name or a mapping {name, label, args}")
		return spec, line
	}
	m := d.Map(n, where)
	m.Known("name", "label", "args")
	m.Require("name")
	spec.Name, spec.Label = m.Str("name"), m.Str("label")
	if d.Err() != nil {
		return spec, line
	}
	if _, err := policy.Lookup(spec.Name); err != nil {
		m.Fail("name", "%v", err)
		return spec, line
	}
	if m.Has("label") {
		if err := policy.CheckLabel(spec.Label); err != nil {
			m.Fail("label", "%v", err)
			return spec, line
		}
	}
	var args *yamlfile.Map
	if an := m.Node("args"); an != nil {
		args = d.Map(an, where+" args")
		spec.Args = map[string]any{}
		for _, k := range args.Keys() {
			v, err := argValue(args.Node(k))
			if err != nil {
				args.Fail(k, "policy %s: arg %s: %v", spec.Name, k, err)
				return spec, line
			}
			spec.Args[k] = v
		}
	}
	if d.Err() != nil {
		return spec, line
	}
	if _, err := policy.Build(spec); err != nil {
		var ae *policy.ArgError
		if errors.As(err, &ae) && args != nil {
			args.Fail(ae.Arg, "%v", err)
		} else {
			m.Fail("args", "%v", err)
		}
	}
	return spec, line
}

// argValue is what YAML makes of an arg's value: int, float64, bool,
// string, nil (an empty value), or a list or mapping, which the policy
// then rejects or accepts by its Config's field.
func argValue(n *yaml.Node) (v any, err error) {
	if n == nil {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot read the value: %v", r)
		}
	}()
	err = n.Decode(&v)
	return v, err
}
