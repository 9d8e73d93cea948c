package dawn

import (
	"strings"
	"testing"
)

func TestValidateNamesTheBadArg(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
	for arg, c := range map[string]Config{
		"balance":          {Balance: 1.5, LookAhead: 2, SaturationThreshold: 0.8, SaturationScope: "rack", Variant: "C"},
		"look_ahead":       {LookAhead: 3, SaturationThreshold: 0.8, SaturationScope: "rack", Variant: "C"},
		"saturation_scope": {LookAhead: 2, SaturationThreshold: 0.8, SaturationScope: "pod", Variant: "C"},
		"variant":          {LookAhead: 2, SaturationThreshold: 0.8, SaturationScope: "rack", Variant: "D"},
		"starve_after":     {LookAhead: 2, SaturationThreshold: 0.8, SaturationScope: "rack", Variant: "C", StarveAfter: -1},
	} {
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s: error %v, want one naming it", arg, err)
		}
	}
}
