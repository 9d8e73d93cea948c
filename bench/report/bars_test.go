package report

import (
	"testing"

	"gonum.org/v1/plot/vg"
)

// Bars never touch: n bars of barWidth fit a panel's data area with room
// between them. (Before the width depended on the panel, the locality
// figure of Trident's five policies drew its bars overlapping.)
func TestBarsLeaveRoomBetweenThem(t *testing.T) {
	for _, panel := range []vg.Length{4 * vg.Inch, barsPanel, crossRackWidth} {
		for n := 1; n <= 12; n++ {
			w := barWidth(n, panel)
			if per := (panel - barAxes) / vg.Length(n); !(w > 0 && w <= 0.7*per) {
				t.Errorf("panel %v, %d bars: width %v in a share of %v", panel, n, w, per)
			}
		}
	}
}

// The categories' names are tilted only when they would run into each
// other: PushBox's ten policies did, side by side, in a 5.5-inch panel.
func TestNamesTiltOnlyWhenCrowded(t *testing.T) {
	for _, tc := range []struct {
		names []string
		tilt  bool
	}{
		{[]string{"fair", "shufflewatcher", "dawn"}, false},
		{[]string{"fair", "shufflewatcher", "pushbox", "pushbox-gp", "pushbox-rs", "pushbox-h", "pushbox-w", "pushbox-f2", "pushbox-f4", "neat"}, true},
	} {
		p := newPlot("t", "", "y")
		nominalX(p, barsPanel, tc.names)
		if tilted := p.X.Tick.Label.Rotation != 0; tilted != tc.tilt {
			t.Errorf("%d names %v: tilted %v, want %v", len(tc.names), tc.names, tilted, tc.tilt)
		}
	}
}
