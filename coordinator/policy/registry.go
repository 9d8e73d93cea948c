package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/capacity"
	"github.com/racklab/racklab/coordinator/policy/corral"
	"github.com/racklab/racklab/coordinator/policy/dawn"
	"github.com/racklab/racklab/coordinator/policy/fair"
	"github.com/racklab/racklab/coordinator/policy/fifo"
	"github.com/racklab/racklab/coordinator/policy/hadoop1"
	"github.com/racklab/racklab/coordinator/policy/hscheduler"
	"github.com/racklab/racklab/coordinator/policy/kmn"
	"github.com/racklab/racklab/coordinator/policy/neat"
	"github.com/racklab/racklab/coordinator/policy/pushbox"
	"github.com/racklab/racklab/coordinator/policy/quartet"
	"github.com/racklab/racklab/coordinator/policy/replay"
	"github.com/racklab/racklab/coordinator/policy/shadow"
	"github.com/racklab/racklab/coordinator/policy/shufflewatcher"
	"github.com/racklab/racklab/coordinator/policy/sparkdefault"
	"github.com/racklab/racklab/coordinator/policy/trident"
	"gopkg.in/yaml.v3"
)

// factories holds one declaration per policy: a new policy package adds
// its line here (name, Config with its defaults, constructor).
var factories = index(
	Define("fifo", fifo.DefaultConfig(), fifo.New),
	Define("fair", fair.DefaultConfig(), fair.New),
	Define("capacity", capacity.DefaultConfig(), capacity.New),
	Define("dawn", dawn.DefaultConfig(), dawn.New),
	Define("shufflewatcher", shufflewatcher.DefaultConfig(), shufflewatcher.New),
	Define("corral", corral.DefaultConfig(), corral.New),
	Define("pushbox", pushbox.DefaultConfig(), pushbox.New),
	Define("neat", neat.DefaultConfig(), neat.New),
	Define("trident", trident.DefaultConfig(), trident.New),
	Define("sparkdefault", sparkdefault.DefaultConfig(), sparkdefault.New),
	Define("hscheduler", hscheduler.DefaultConfig(), hscheduler.New),
	Define("quartet", quartet.DefaultConfig(), quartet.New),
	Define("hadoop", hadoop1.DefaultHadoopConfig(), hadoop1.NewHadoop),
	Define("delay", hadoop1.DefaultDelayConfig(), hadoop1.NewDelay),
	Define("even", hadoop1.DefaultEvenConfig(), hadoop1.NewEven),
	Define("kmn", kmn.DefaultConfig(), kmn.New),
	Define("shadow", shadow.DefaultConfig(), shadow.New),
)

// The replay is added in init: it builds recorded policies through the
// registry (newReplay), which a variable's initializer may not refer to.
func init() {
	factories["replay"] = DefineLoading("replay", replay.DefaultConfig(), newReplay)
}

func index(fs ...Factory) map[string]Factory {
	m := make(map[string]Factory, len(fs))
	for _, f := range fs {
		m[f.name] = f
	}
	return m
}

// Names lists the known policies, sorted.
func Names() []string {
	var n []string
	for k := range factories {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Deciding returns Names but the policies that decide nothing themselves
// and need a recorded run to repeat (replay): the ones a property test or
// a benchmark can run on any workload.
func Deciding() []string {
	var n []string
	for _, k := range Names() {
		if k != "replay" {
			n = append(n, k)
		}
	}
	return n
}

// Lookup returns the factory of a policy, which describes its args.
func Lookup(name string) (Factory, error) {
	f, ok := factories[name]
	if !ok {
		return Factory{}, fmt.Errorf("unknown policy %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return f, nil
}

// Build builds the policy a spec names, with its args decoded over the
// policy's defaults. Every call returns a fresh policy: policies keep
// per-run state.
func Build(spec Spec) (engine.Policy, error) {
	f, err := Lookup(spec.Name)
	if err != nil {
		return nil, err
	}
	return f.Build(spec.Args)
}

// New builds a policy by name with its default configuration.
func New(name string) (engine.Policy, error) {
	return Build(Spec{Name: name})
}

// ScenarioFactory builds a policy for a scenario file's `policy NAME k=v`
// line (policytest.Factory): each value is read as a YAML scalar (1, -1,
// 0.5, true, 10s), and the args go through Build, as a campaign's do.
func ScenarioFactory(name string, args map[string]string) (engine.Policy, error) {
	spec := Spec{Name: name}
	if len(args) > 0 {
		spec.Args = make(map[string]any, len(args))
		for k, v := range args {
			var val any
			if err := yaml.Unmarshal([]byte(v), &val); err != nil {
				return nil, fmt.Errorf("policy %s: arg %s: %q is not a value: %v", name, k, v, err)
			}
			spec.Args[k] = val
		}
	}
	return Build(spec)
}

// newReplay builds a replay, and the recorded run's policy too when the
// args name it as the placer of the run's datasets (replay.WithPlacer).
// It lives here because only the registry builds policies by name.
func newReplay(cfg replay.Config) (engine.Policy, error) {
	p, err := replay.New(cfg)
	if err != nil || cfg.Placer == "" {
		return p, err
	}
	if cfg.Placer == "replay" {
		return nil, fmt.Errorf("arg placer: a replay places no datasets of its own")
	}
	spec := Spec{Name: cfg.Placer}
	if cfg.PlacerArgs != "" {
		if err := yaml.Unmarshal([]byte(cfg.PlacerArgs), &spec.Args); err != nil {
			return nil, fmt.Errorf("arg placer_args: want a YAML mapping such as '{placement: hdfs}': %v", err)
		}
	}
	recorded, err := Build(spec)
	if err != nil {
		return nil, fmt.Errorf("arg placer: %w", err)
	}
	return replay.WithPlacer(p, recorded)
}
