package netmon

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/engine"
)

// DefaultWindow is dawn.md §2.9's monitor window W, in seconds.
const DefaultWindow = 2

// MaxWindow bounds W: a window of an hour averages away every burst the
// policies adapt to, and is surely a unit mistake (milliseconds).
const MaxWindow = 3600

// Monitor averages the rack links' loads over the last Window seconds.
// Averaging the driver's measurements (engine.NetworkWindow each) keeps a
// burst shorter than W from flipping a saturation bit, as the spec's 2 s
// window of 1 s samples does. The zero Monitor takes the driver's latest
// measurement alone.
type Monitor struct {
	// Window is W in seconds; 0: the latest measurement alone.
	Window  float64
	samples []sample // oldest first; none that ended before now - W
	up      []float64
	down    []float64
}

// sample is one measurement: the rack links' loads over (at-span, at].
type sample struct {
	at, span float64
	up, down []float64
}

// Add keeps a measurement taken at now, dropping those that ended before
// the window (and reusing their slices).
func (m *Monitor) Add(now engine.Time, n *engine.NetworkStatus) {
	if m.Window <= 0 {
		return
	}
	keep := m.samples[:0]
	var spare *sample
	for _, s := range m.samples {
		if s.at > now-m.Window {
			keep = append(keep, s)
		} else if spare == nil {
			spare = &s
		}
	}
	s := sample{at: now, span: n.Window}
	if spare != nil {
		s.up, s.down = spare.up[:0], spare.down[:0]
	}
	s.up = append(s.up, n.UplinkLoad...)
	s.down = append(s.down, n.DownlinkLoad...)
	m.samples = append(keep, s)
}

// Loads returns each rack's uplink and downlink load over the last W
// seconds: the measurements weighted by how much of their span lies in
// the window (time no measurement covers does not count). With W = 0, or
// no measurement in the window, it is the driver's latest one, n's. The
// slices are the Monitor's until its next call.
func (m *Monitor) Loads(now engine.Time, n *engine.NetworkStatus) (up, down []float64) {
	if m.Window <= 0 {
		return n.UplinkLoad, n.DownlinkLoad
	}
	from := now - m.Window
	m.up = append(m.up[:0], make([]float64, len(n.UplinkLoad))...)
	m.down = append(m.down[:0], make([]float64, len(n.DownlinkLoad))...)
	var covered float64
	for _, s := range m.samples {
		w := min(s.at, now) - max(s.at-s.span, from)
		if w <= 0 {
			continue
		}
		covered += w
		accumulate(m.up, s.up, w)
		accumulate(m.down, s.down, w)
	}
	if covered == 0 {
		return n.UplinkLoad, n.DownlinkLoad
	}
	for r := range m.up {
		m.up[r] /= covered
	}
	for r := range m.down {
		m.down[r] /= covered
	}
	return m.up, m.down
}

func accumulate(sum, loads []float64, w float64) {
	for r := range sum {
		if r < len(loads) {
			sum[r] += w * loads[r]
		}
	}
}

// Validate checks a policy's monitor_window arg.
func Validate(window float64) error {
	if !(window >= 0 && window <= MaxWindow) {
		return fmt.Errorf("monitor_window %g: want seconds in [0,%d]", window, MaxWindow)
	}
	return nil
}

// RackLoad is rack r's load as §2.4 reads it, the larger of its uplink
// and downlink loads (0 for a rack the slices do not cover).
func RackLoad(up, down []float64, r int) float64 {
	var u, d float64
	if r < len(up) {
		u = up[r]
	}
	if r < len(down) {
		d = down[r]
	}
	return max(u, d)
}
