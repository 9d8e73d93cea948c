package shaping

import (
	"flag"
	"fmt"
	"testing"
	"time"
)

var benchCC = flag.String("shaping.cc", "", "TCP congestion control of the benchmark stream (default: the workers' data plane's, cubic)")

// Goodput of one TCP stream through a shaped rack link, as a fraction of the
// configured rate. The payload can be at most 1448/1514 = 95.6% of the bytes
// HTB shapes (Ethernet + IPv4 + TCP with timestamps per 1500-byte MTU
// segment), so "goodput/rate" is bounded by that; "htb/rate" is the rate the
// shaping class itself achieved. "switched" shapes the rack link in the
// fabric, "flat" shapes with a HostShaper on the sender's NIC, "prio" adds
// per-priority leaves (the stream then borrows its rate from the group).
//
//	go test -run '^$' -bench ShapedRackLink ./shaping/ [-args -shaping.cc=cubic]
func BenchmarkShapedRackLink(b *testing.B) {
	type variant struct {
		name  string
		mode  Mode
		prios bool
	}
	for _, v := range []variant{{"switched", Switched, false}, {"flat", Flat, false}, {"switched-prio", Switched, true}} {
		for _, rate := range []struct {
			name string
			bps  float64
		}{{"100Mbit", 12.5e6}, {"1Gbit", 125e6}} {
			b.Run(fmt.Sprintf("%s/%s", v.name, rate.name), func(b *testing.B) {
				benchLink(b, v.mode, v.prios, rate.bps)
			})
		}
	}
}

func benchLink(b *testing.B, mode Mode, prios bool, rate float64) {
	const warmup, window = 500 * time.Millisecond, 3 * time.Second
	spec := ClusterSpec{Prefix: testPrefix("sb"), Mode: mode, Racks: racks(2, 1, rate, rate), Priorities: prios}
	c := upCluster(b, spec)
	src, dst := c.Hosts[0], c.Hosts[1]
	// htb reads the byte counter of the class that shapes the stream.
	htb := func() uint64 {
		ns, dev, r := c.FabricNetns(), rackUpDev(0), 0
		if mode == Flat {
			ns, dev, r = src.Netns, src.DataDev, 1
		}
		cs, err := hostClassCounters(ns, dev)
		if err != nil {
			b.Fatal(err)
		}
		return cs[r].Bytes
	}
	if mode == Flat {
		s, err := NewHostShaperIn(src.Netns, src.DataDev)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		if err := s.SetRack(1, rate, c.RackDataIPs(1)); err != nil {
			b.Fatal(err)
		}
	}
	var goodput, wire float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := startStream(b, src, dst, -1, *benchCC)
		time.Sleep(warmup)
		g0, w0, t0 := s.sink.bytes.Load(), htb(), time.Now()
		time.Sleep(window)
		g1, w1, t1 := s.sink.bytes.Load(), htb(), time.Now()
		s.Stop()
		secs := t1.Sub(t0).Seconds()
		goodput += float64(g1-g0) / secs
		wire += float64(w1-w0) / secs
	}
	b.StopTimer()
	goodput /= float64(b.N)
	wire /= float64(b.N)
	b.ReportMetric(goodput/rate, "goodput/rate")
	b.ReportMetric(wire/rate, "htb/rate")
	b.ReportMetric(goodput*8/1e6, "Mbit/s")
}
