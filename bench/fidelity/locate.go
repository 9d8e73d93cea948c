package fidelity

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/racklab/racklab/bench/campaign"
	"github.com/racklab/racklab/bench/sim"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy"
	"github.com/racklab/racklab/coordinator/policy/replay"
	"gopkg.in/yaml.v3"
)

// Run is a recorded run of a campaign's result directory.
type Run struct {
	Campaign *campaign.Campaign
	// Root is the result directory, where campaign.yaml is.
	Root string
	Run  campaign.Run
}

// Rel is the run's directory under the result directory:
// <set>[/<workload>]/<label>-seed<N>.
func (r Run) Rel() string {
	rel, err := filepath.Rel(r.Root, r.Run.Dir)
	if err != nil {
		return r.Run.ID()
	}
	return rel
}

// OpenCampaign reads the campaign of result directory root: the file
// campaignPath if given (the campaign as written, whose relative input
// paths resolve against its own directory; it must be the one the
// results were made with), else the campaign file root's meta.json names
// while it is unchanged, else root's campaign.yaml (relative input paths
// then resolve against root).
func OpenCampaign(root, campaignPath string) (*campaign.Campaign, error) {
	recorded := filepath.Join(root, "campaign.yaml")
	if campaignPath == "" {
		// the campaign file the results were made from, where its
		// relative input paths resolve, while it is unchanged
		campaignPath = campaign.RecordedCampaignFile(root)
	}
	if campaignPath == "" {
		c, err := campaign.Load(recorded)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s holds no campaign.yaml: is it a campaign's result directory?", root)
		}
		return c, err
	}
	c, err := campaign.Load(campaignPath)
	if err != nil {
		return nil, err
	}
	old, err := os.ReadFile(recorded)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (is %s a campaign's result directory?)", recorded, err, root)
	}
	if !bytes.Equal(old, c.Source) && !campaign.SameRuns(old, c.Source) {
		return nil, fmt.Errorf("%s differs from the campaign the results in %s were made with (%s)", campaignPath, root, recorded)
	}
	return c, nil
}

// Locate finds the campaign and the run of a run directory
// (<root>/<set>[/<workload>]/<label>-seed<N>, root holding
// campaign.yaml); campaignPath is as for OpenCampaign.
func Locate(runDir, campaignPath string) (Run, error) {
	abs, err := filepath.Abs(runDir)
	if err != nil {
		return Run{}, err
	}
	if _, err := os.Stat(filepath.Join(abs, "attempts.csv")); err != nil {
		return Run{}, fmt.Errorf("%s is not a run's directory: %w", runDir, err)
	}
	root := ""
	for d, i := filepath.Dir(abs), 0; i < 3; d, i = filepath.Dir(d), i+1 {
		if _, err := os.Stat(filepath.Join(d, "campaign.yaml")); err == nil {
			root = d
			break
		}
	}
	if root == "" {
		return Run{}, fmt.Errorf("%s: no campaign.yaml above it: a run directory of a campaign's results is <result dir>/<set>[/<workload>]/<label>-seed<N>", runDir)
	}
	c, err := OpenCampaign(root, campaignPath)
	if err != nil {
		return Run{}, err
	}
	for _, r := range c.Matrix(root) {
		if filepath.Clean(r.Dir) == abs {
			return Run{Campaign: c, Root: root, Run: r}, nil
		}
	}
	return Run{}, fmt.Errorf("%s is not a run of campaign %s (its runs are %s/<set>[/<workload>]/<label>-seed<N>)", runDir, c.Name, root)
}

// LiveRuns are the finished live runs (modes local and remote) of a
// campaign's result directory, in campaign order.
func LiveRuns(c *campaign.Campaign, root string) []Run {
	var out []Run
	for _, r := range c.Matrix(root) {
		if r.Mode == campaign.ModeSim {
			continue
		}
		if _, ok := campaign.Done(r); ok {
			out = append(out, Run{Campaign: c, Root: root, Run: r})
		}
	}
	return out
}

// SlowStart is the slow-start a run's engine took: its run set's or the
// campaign's, else its policy's default (engine.Configurer), else 0 (the
// engine's).
func SlowStart(c *campaign.Campaign, rs campaign.RunSet, p policy.Spec) float64 {
	if v := c.SlowStartOf(rs); v > 0 {
		return v
	}
	built, err := policy.Build(p)
	if err != nil {
		return 0
	}
	if cf, ok := built.(engine.Configurer); ok {
		var cfg engine.Config
		cf.Configure(&cfg)
		return cfg.SlowStart
	}
	return 0
}

// SimSpec is the run simulated, its policy choosing for itself, with
// its records under dir.
func (r Run) SimSpec(dir string) (sim.Spec, error) {
	spec, err := r.campaignSpec()
	if err != nil {
		return sim.Spec{}, err
	}
	spec.Dir = sim.RunDir(dir, spec.Policy.String(), spec.Seed)
	return spec, nil
}

// ReplayLabel is the label of a replay of a run whose policy is label.
func ReplayLabel(label string) string { return "replay-" + label }

// ReplaySpec is the run's decisions replayed in the simulator, with its
// records under dir (as <replay label>-seed<N>); notBefore holds each
// attempt back until its recorded start too (replay.Config). The records
// are checked against the run's workload and cluster first.
func (r Run) ReplaySpec(dir string, notBefore bool) (sim.Spec, error) {
	spec, err := r.campaignSpec()
	if err != nil {
		return sim.Spec{}, err
	}
	file := filepath.Join(r.Run.Dir, "attempts.csv")
	lg, err := replay.Load(file)
	if err != nil {
		return sim.Spec{}, err
	}
	if err := lg.Check(spec.Topology, spec.Workload); err != nil {
		return sim.Spec{}, err
	}
	args := map[string]any{"file": file, "slowstart": SlowStart(r.Campaign, r.Run.Set, r.Run.Policy), "not_before": notBefore}
	if err := placerArgs(r.Run.Policy, args); err != nil {
		return sim.Spec{}, err
	}
	spec.Policy = policy.Spec{Name: "replay", Label: ReplayLabel(r.Run.Policy.String()), Args: args}
	spec.Dir = sim.RunDir(dir, spec.Policy.String(), spec.Seed)
	return spec, nil
}

// placerArgs names the recorded policy as the replay's placer when it
// placed the run's input datasets itself (Corral): replayed under the
// cluster's placement, its maps' recorded sources would not hold their
// blocks.
func placerArgs(recorded policy.Spec, args map[string]any) error {
	p, err := policy.Build(recorded)
	if err != nil {
		return fmt.Errorf("the recorded policy: %w", err)
	}
	if _, ok := p.(engine.DatasetPlacer); !ok {
		return nil
	}
	args["placer"] = recorded.Name
	if len(recorded.Args) > 0 {
		b, err := yaml.Marshal(recorded.Args)
		if err != nil {
			return fmt.Errorf("the recorded policy's args: %w", err)
		}
		args["placer_args"] = string(b)
	}
	return nil
}

// campaignSpec is the run's simulation spec; an input file that is not
// where the result directory's own campaign.yaml points says how to
// point it right.
func (r Run) campaignSpec() (sim.Spec, error) {
	spec, err := r.Campaign.SimSpec(r.Run)
	if errors.Is(err, fs.ErrNotExist) && filepath.Clean(r.Campaign.Path) == filepath.Join(r.Root, "campaign.yaml") {
		return spec, fmt.Errorf("%w (read from %s, whose relative paths resolve against the result directory: give the campaign file the results were made with)", err, r.Campaign.Path)
	}
	return spec, err
}
