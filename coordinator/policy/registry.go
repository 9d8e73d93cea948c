package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/capacity"
	"github.com/racklab/racklab/coordinator/policy/fair"
	"github.com/racklab/racklab/coordinator/policy/fifo"
)

var builders = map[string]func() engine.Policy{
	"fifo":     func() engine.Policy { return fifo.New() },
	"fair":     func() engine.Policy { return fair.New(fair.DefaultConfig()) },
	"capacity": func() engine.Policy { return capacity.New(capacity.Config{}) },
}

// Names lists the policies New knows, sorted.
func Names() []string {
	var n []string
	for k := range builders {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// New builds a policy by name with its default configuration.
func New(name string) (engine.Policy, error) {
	b, ok := builders[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return b(), nil
}
