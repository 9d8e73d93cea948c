package pushbox

import (
	"strings"
	"testing"
)

// TestGPBinEdgeBelowAByteIsRefused: gp_bin_bytes=1e-300 used to pass
// Validate; a 1 GB coflow over that edge is +Inf, whose bin converted
// to an int wrapped, and the coflow took GP class 1, ahead of smaller
// ones, instead of the last class. The smallest edge accepted, one
// byte, puts it in the last class.
func TestGPBinEdgeBelowAByteIsRefused(t *testing.T) {
	if got := gpBin(1e9, 1); got != gpClasses-1 {
		t.Errorf("1 GB coflow over a 1-byte edge: class %d, want %d", got, gpClasses-1)
	}
	for _, edge := range []float64{1e-300, 0.5} {
		c := DefaultConfig()
		c.GPBinBytes = edge
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "gp_bin_bytes") {
			t.Errorf("gp_bin_bytes %g: error %v, want one naming gp_bin_bytes", edge, err)
		}
	}
	c := DefaultConfig()
	c.GPBinBytes = 1
	if err := c.Validate(); err != nil {
		t.Errorf("gp_bin_bytes 1: %v", err)
	}
}
