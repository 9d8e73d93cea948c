package reproduce

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/racklab/racklab/bench/campaign"
)

// CampaignPath is the campaign file of a paper: dir/<paper>.yaml, or
// paper itself when it names a file.
func CampaignPath(dir, paper string) string {
	if strings.HasSuffix(paper, ".yaml") || strings.ContainsRune(paper, filepath.Separator) {
		return paper
	}
	return filepath.Join(dir, paper+".yaml")
}

// Papers lists the papers whose campaign in dir has a headline table.
func Papers(dir string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	var out []string
	for _, p := range paths {
		c, err := campaign.Load(p)
		if err == nil && c.Headlines != nil {
			out = append(out, strings.TrimSuffix(filepath.Base(p), ".yaml"))
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// Prepare loads a paper's campaign and its headline table, and cuts the
// campaign down to the runs of one mode (all its run sets, named or not).
func Prepare(path, mode string) (*campaign.Campaign, *Table, error) {
	c, err := campaign.Load(path)
	if err != nil {
		return nil, nil, err
	}
	t, err := Parse(c)
	if err != nil {
		return nil, nil, err
	}
	if t == nil {
		return nil, nil, fmt.Errorf("%s: no headlines section: the paper's headline table is not written yet", path)
	}
	var sets []string
	var runs []campaign.RunSet
	for _, rs := range c.Runs {
		sets = append(sets, rs.Dir())
		if rs.Mode == mode {
			runs = append(runs, rs)
		}
	}
	if len(runs) == 0 {
		return nil, nil, fmt.Errorf("%s: no %s runs (the campaign's run sets: %s)", path, mode, strings.Join(sets, ", "))
	}
	// the result directory is the campaign's own: campaign.yaml stays the
	// whole file, so `bench run` and the other mode resume the same one
	c.Runs = runs
	return c, t, nil
}

// Run executes the runs of a mode of a prepared campaign (resuming what an
// earlier invocation finished) and checks the table against them. The
// check is returned also when some runs failed, with their rows not
// measured, beside the error.
func Run(ctx context.Context, c *campaign.Campaign, t *Table, mode string, opt campaign.Options) (*Check, error) {
	runErr := campaign.Execute(ctx, c, opt)
	if ctx.Err() != nil {
		return nil, runErr
	}
	// a run error before any run (a result directory of another campaign,
	// an unreadable trace) leaves nothing of this campaign to check
	if b, err := os.ReadFile(filepath.Join(opt.Out, "campaign.yaml")); err != nil || !bytes.Equal(b, c.Source) {
		if runErr == nil {
			runErr = fmt.Errorf("%s does not hold campaign %s", opt.Out, c.Name)
		}
		return nil, runErr
	}
	ch, err := Evaluate(c, t, opt.Out, mode)
	if err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("%w; then: %w", runErr, err)
		}
		return nil, err
	}
	ch.OwnRows(c)
	return ch, runErr
}
