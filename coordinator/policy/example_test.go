package policy_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/policytest"
)

// The example of README.md, between its markers, compiled and run here.

// BEGIN EXAMPLE
// Config is the policy's args: a campaign writes {busy: 0.6}.
type Config struct {
	// Busy is the downlink load above which a rack takes no map whose
	// input is in another rack.
	Busy float64 `yaml:"busy"`
}

// RackFirst serves jobs oldest first. It runs a map node-local, then
// rack-local, and farther only while the host's rack downlink is not
// busy; else it leaves the slot idle. Reducers go anywhere.
type RackFirst struct{ cfg Config }

func NewRackFirst(cfg Config) *RackFirst { return &RackFirst{cfg: cfg} }

func (*RackFirst) Name() string { return "rackfirst" }

// Configure states a default: reducers wait for every map.
func (*RackFirst) Configure(cfg *engine.Config) { cfg.SlowStart = 1 }

// OfferHost is a heartbeat from host h with free slots.
func (p *RackFirst) OfferHost(ctx *engine.Context, h cluster.HostID) {
	rack := ctx.Topology().RackOf(h)
	for _, j := range ctx.Running() {
		for ctx.FreeSlots(h) > 0 {
			t, ok := ctx.NextPendingShuffle(j.ID)
			if !ok {
				farthest := engine.RackLocal
				if ctx.Network().DownlinkLoad[rack] < p.cfg.Busy {
					farthest = engine.Remote
				}
				t, _, ok = ctx.PickMap(j.ID, h, farthest)
			}
			if !ok {
				break // nothing this job may run here: ask the next
			}
			if _, err := ctx.Launch(t, h, engine.LaunchOptions{}); err != nil {
				return // the engine says why in its counters
			}
		}
	}
}

// END EXAMPLE

// The README's example is this file's, word for word.
func TestReadmeExampleIsThisOne(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	between := func(s, from, to string) string {
		_, after, _ := strings.Cut(s, from)
		in, _, _ := strings.Cut(after, to)
		return strings.TrimSpace(in)
	}
	code := between(string(src), "// BEGIN EXAMPLE", "// END EXAMPLE")
	doc := between(string(readme), "```go\n", "```")
	if code == "" || code != doc {
		t.Fatalf("README.md's example differs from example_test.go's:\n%s", doc)
	}
}

func exampleFactory(name string, args map[string]string) (engine.Policy, error) {
	if name != "rackfirst" {
		return nil, fmt.Errorf("unknown policy %q", name)
	}
	cfg := Config{Busy: 0.8}
	for k, v := range args {
		f, err := strconv.ParseFloat(v, 64)
		if k != "busy" || err != nil {
			return nil, fmt.Errorf("bad arg %s=%s", k, v)
		}
		cfg.Busy = f
	}
	return NewRackFirst(cfg), nil
}

func TestExampleScenarios(t *testing.T) {
	policytest.RunScenarios(t, "testdata/example", exampleFactory)
}
