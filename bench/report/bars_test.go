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
