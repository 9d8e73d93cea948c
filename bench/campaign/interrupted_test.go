package campaign

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Runs stopped by a Ctrl-C say only that; a run that had failed for its
// own reason before says why too (runSims returned ctx.Err() alone when
// the Ctrl-C came while it waited for a slot, hiding the failure).
func TestInterruptedKeepsOwnFailures(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errs := []error{nil, fmt.Errorf("run sim/fair-seed1: the run stalled: no event left"), ctx.Err(), fmt.Errorf("run sim/fifo-seed2: %w", context.Canceled)}
	err := interrupted(ctx.Err(), errs)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v is no interruption", err)
	}
	if got := err.Error(); got != "context canceled\nrun sim/fair-seed1: the run stalled: no event left" {
		t.Errorf("error %q", got)
	}
	if strings.Count(interrupted(ctx.Err(), nil).Error(), "canceled") != 1 {
		t.Error("an interruption alone is not said once")
	}
}
