package live

import (
	"time"

	"github.com/racklab/racklab/coordinator/engine"
)

// sampleNetwork feeds the engine the network status from the workers'
// reports, and records rack-link utilisation from the kernel counters.
// sampleNetwork hands the engine the network status every
// engine.NetworkWindow: each rack link's load over the window as a share
// of its nominal capacity, background traffic included, from the kernel's
// counters where the cluster has them (the emulator's), else from the
// workers' own counts; and each host's receive rate. It also records the
// kernel-counted link utilisation.
func (r *run) sampleNetwork() {
	now := time.Now()
	dt := now.Sub(r.lastNet).Seconds()
	if dt < engine.NetworkWindow {
		return
	}
	r.lastNet = now
	nr := len(r.topo.Racks)
	st := engine.NetworkStatus{UplinkLoad: make([]float64, nr), DownlinkLoad: make([]float64, nr),
		HostRxBps: make([]float64, len(r.hosts)), HostCrossRxBps: make([]float64, len(r.hosts)), Window: dt}
	upB, downB := make([]float64, nr), make([]float64, nr)
	for i := range r.hosts {
		h := &r.hosts[i]
		if h.reg == nil || h.lost {
			continue
		}
		st.HostRxBps[i] = float64(h.rxBytes-h.prevRx) / dt
		h.prevRx = h.rxBytes
		dst := r.topo.Hosts[i].Rack
		for rack, n := range h.crossRx {
			src, ok := r.rackName[rack]
			if !ok {
				continue
			}
			d := float64(n - h.prevCross[rack])
			h.prevCross[rack] = n
			upB[src] += d
			downB[dst] += d
			if src != dst {
				st.HostCrossRxBps[i] += d / dt
			}
		}
	}
	util, kernel := r.kernelUtilisation(dt)
	bg := r.cfg.Background
	for k, rk := range r.topo.Racks {
		switch {
		case kernel:
			st.UplinkLoad[k], st.DownlinkLoad[k] = bg+util[k], bg+util[nr+k]
		default:
			if rk.UplinkBps > 0 {
				st.UplinkLoad[k] = bg + upB[k]/dt/rk.UplinkBps
			}
			if rk.DownlinkBps > 0 {
				st.DownlinkLoad[k] = bg + downB[k]/dt/rk.DownlinkBps
			}
		}
	}
	r.eng.SetNetwork(st)
	if !kernel {
		return
	}
	for k, rk := range r.topo.Racks {
		r.prom.linkUtil.WithLabelValues(rk.Name, "up").Set(util[k])
		r.prom.linkUtil.WithLabelValues(rk.Name, "down").Set(util[nr+k])
	}
	if err := r.sink.LinkSample(r.now(), util[:nr], util[nr:]); err != nil {
		r.logf("link sample: %v", err)
	}
}

// kernelUtilisation is each rack link's workload payload over the last dt
// seconds from the kernel's counters, as a share of its capacity: uplinks
// then downlinks. ok is false where the cluster has no such counters.
func (r *run) kernelUtilisation(dt float64) (util []float64, ok bool) {
	if r.cfg.Counters == nil {
		return nil, false
	}
	nr := len(r.topo.Racks)
	u, d, err := r.cfg.Counters()
	if err != nil || len(u) < nr || len(d) < nr {
		return nil, false
	}
	cur := append(append([]float64(nil), u[:nr]...), d[:nr]...)
	if r.lastCounters == nil {
		r.lastCounters = r.counter0
	}
	util = make([]float64, 2*nr)
	for k, rk := range r.topo.Racks {
		if rk.UplinkBps > 0 {
			util[k] = (cur[k] - r.lastCounters[k]) / dt / rk.UplinkBps
		}
		if rk.DownlinkBps > 0 {
			util[nr+k] = (cur[nr+k] - r.lastCounters[nr+k]) / dt / rk.DownlinkBps
		}
	}
	r.lastCounters = cur
	return util, true
}
