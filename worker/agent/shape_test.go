package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/racklab/racklab/shaping"
	"github.com/racklab/racklab/shaping/share"
	"github.com/vishvananda/netlink"
)

// --shape-priorities reaches the worker's own shaper: its rack classes get
// priority leaves (and do not without it).
func TestShaperPriorities(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces and tc")
	}
	prefix := fmt.Sprintf("ag%d", os.Getpid()%10000)
	c, err := shaping.Up(shaping.ClusterSpec{Prefix: prefix, Mode: shaping.Flat, Racks: []shaping.RackSpec{{Hosts: 1}, {Hosts: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Down(); err != nil {
			t.Error(err)
		}
	})
	h := c.Hosts[0]
	for _, prios := range []bool{false, true} {
		var s *shaper
		if err := shaping.Do(h.Netns, func() (err error) { s, err = newShaper(h.DataDev, "r0", 1e6, prios, false); return err }); err != nil {
			t.Fatal(err)
		}
		got := s.hs.Priorities()
		if err := s.close(); err != nil {
			t.Error(err)
		}
		if got != prios {
			t.Errorf("newShaper(priorities %v): the shaper's priorities are %v", prios, got)
		}
	}
}

func TestEstimateDemand(t *testing.T) {
	c := func(bytes uint64, backlog uint32) shaping.ClassCounters {
		return shaping.ClassCounters{Bytes: bytes, Backlog: backlog}
	}
	for _, tc := range []struct {
		name       string
		prev, cur  shaping.ClassCounters
		dt, rate   float64
		want       float64
		backlogged bool
	}{
		{name: "first interval", prev: c(0, 0), cur: c(1000, 0), dt: 0, rate: 100},
		{name: "idle", prev: c(500, 0), cur: c(500, 0), dt: 0.1, rate: 1000},
		{name: "held by something else", prev: c(0, 0), cur: c(50, 0), dt: 0.1, rate: 1000, want: 600},
		{name: "near its rate", prev: c(0, 0), cur: c(90, 0), dt: 0.1, rate: 1000, backlogged: true},
		{name: "queue waiting", prev: c(0, 0), cur: c(10, 1500), dt: 0.1, rate: 1000, backlogged: true},
		{name: "class made anew", prev: c(5000, 0), cur: c(10, 0), dt: 0.1, rate: 1000},
		{name: "unshaped", prev: c(0, 0), cur: c(1e6, 0), dt: 0.1, rate: 0, want: 1.2e7},
	} {
		got := estimateDemand(tc.prev, tc.cur, tc.dt, tc.rate)
		if tc.backlogged != math.IsInf(got, 1) || (!tc.backlogged && math.Abs(got-tc.want) > 1e-6) {
			t.Errorf("%s: demand %v, want %v (backlogged %v)", tc.name, got, tc.want, tc.backlogged)
		}
	}
}

// Every worker builds the same input, whatever the order it heard from
// its peers: hosts by name, racks by the topology's numbering, a rack's
// links the smallest its hosts report.
func TestShareInput(t *testing.T) {
	index := map[string]int{"ra": 0, "rb": 1}
	number := func(r string) int {
		if _, ok := index[r]; !ok {
			index[r] = len(index)
		}
		return index[r]
	}
	msgs := []demandMsg{
		{Host: "h2", Rack: "rb", UplinkBps: 100, DownlinkBps: 80, Demand: map[string]float64{"ra": -1}},
		{Host: "h1", Rack: "ra", UplinkBps: 100, DownlinkBps: 100, NICBps: 50, Demand: map[string]float64{"rb": 30, "rc": 5}},
		{Host: "h3", Rack: "rb", UplinkBps: 90},
		{Host: "h0", Rack: "ra"},
	}
	in, self := shareInput(msgs, number, false)
	if self != 2 {
		t.Errorf("this host (h2) at %d, want 2", self)
	}
	if len(in.Racks) != 3 || in.Racks[0] != (share.Rack{UplinkBps: 100, DownlinkBps: 100}) || in.Racks[1] != (share.Rack{UplinkBps: 90, DownlinkBps: 80}) || in.Racks[2] != (share.Rack{}) {
		t.Errorf("racks %+v", in.Racks)
	}
	want := []share.Host{
		{Rack: 0, Demand: []float64{0, 0, 0}},
		{Rack: 0, NICBps: 50, Demand: []float64{0, 30, 5}},
		{Rack: 1, Demand: []float64{share.Backlogged, 0, 0}},
		{Rack: 1, Demand: []float64{0, 0, 0}},
	}
	if fmt.Sprint(in.Hosts) != fmt.Sprint(want) {
		t.Errorf("hosts %v, want %v", in.Hosts, want)
	}

	// the receive side: mirrored links, receive demand
	msgs[0].RxDemand = map[string]float64{"ra": 7}
	msgs[3].RxDemand = map[string]float64{"rb": -1}
	in, self = shareInput(msgs, number, true)
	if self != 2 {
		t.Errorf("receive side: this host (h2) at %d, want 2", self)
	}
	if in.Racks[0] != (share.Rack{UplinkBps: 100, DownlinkBps: 100}) || in.Racks[1] != (share.Rack{UplinkBps: 80, DownlinkBps: 90}) {
		t.Errorf("receive side: racks %+v", in.Racks)
	}
	want = []share.Host{
		{Rack: 0, Demand: []float64{0, share.Backlogged}},
		{Rack: 0, NICBps: 50, Demand: []float64{0, 0}},
		{Rack: 1, Demand: []float64{7, 0}},
		{Rack: 1, Demand: []float64{0, 0}},
	}
	if fmt.Sprint(in.Hosts) != fmt.Sprint(want) {
		t.Errorf("receive side: hosts %v, want %v", in.Hosts, want)
	}
}

// A peer's older message, arriving after a newer one, is dropped; so are
// our own and other kinds of messages. A backlogged demand (-1 on the
// wire) is a demand: refused as an impossible one, it stopped sharing.
func TestReceiveKeepsTheNewest(t *testing.T) {
	sh := &sharer{host: "me", heard: map[string]heardDemand{}}
	send := func(m demandMsg) {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		sh.receive(b)
	}
	send(demandMsg{Kind: demandKind, Host: "p", Rack: "r1", Seq: 5, Demand: map[string]float64{"r0": 1, "r2": -1}, Bands: map[string][]float64{"r0": {0, -1}}})
	send(demandMsg{Kind: demandKind, Host: "p", Rack: "r1", Seq: 4, Demand: map[string]float64{"r0": 2}})
	send(demandMsg{Kind: demandKind, Host: "me", Rack: "r0", Seq: 9})
	send(demandMsg{Kind: "other", Host: "q", Seq: 1})
	sh.receive([]byte("not json"))
	if len(sh.heard) != 1 || sh.heard["p"].msg.Demand["r0"] != 1 {
		t.Errorf("heard %+v", sh.heard)
	}
}

// A worker restarted under its name counts Seq from 1 again: its new
// epoch makes its messages the newest (they were dropped until its Seq
// passed its old self's, and its demand ignored meanwhile).
func TestReceiveTakesARestartedPeer(t *testing.T) {
	sh := &sharer{host: "me", heard: map[string]heardDemand{}}
	for _, m := range []demandMsg{
		{Kind: demandKind, Host: "p", Rack: "r1", Epoch: 100, Seq: 500, Demand: map[string]float64{"r0": 1}},
		{Kind: demandKind, Host: "p", Rack: "r1", Epoch: 200, Seq: 1, Demand: map[string]float64{"r0": 2}},
		{Kind: demandKind, Host: "p", Rack: "r1", Epoch: 100, Seq: 501, Demand: map[string]float64{"r0": 3}}, // its old self, late
	} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		sh.receive(b)
	}
	if got := sh.heard["p"].msg; got.Epoch != 200 || got.Demand["r0"] != 2 {
		t.Errorf("heard %+v, want the restarted peer's message", got)
	}
}

// A message no worker sends is refused, said once per host and reason:
// a negative NIC rate made share.Compute refuse every worker's input at
// every interval (demand sharing stopped cluster-wide), and each new
// rack name became a class on every worker.
func TestReceiveRefusesBadDemand(t *testing.T) {
	var said []string
	sh := &sharer{host: "me", heard: map[string]heardDemand{}, problem: func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }}
	many := map[string]float64{}
	for i := range 300 {
		many[fmt.Sprintf("x%d", i)] = 1
	}
	for _, m := range []demandMsg{
		{Kind: demandKind, Host: "p", Rack: "r1", Seq: 1, NICBps: -1},
		{Kind: demandKind, Host: "p", Rack: "r1", Seq: 2, NICBps: -1},
		{Kind: demandKind, Host: "q", Rack: "r1", Seq: 1, Demand: map[string]float64{"r0": -2}},
		{Kind: demandKind, Host: "q", Rack: "r1", Seq: 2, Bands: map[string][]float64{"r0": {1, 2, 3, 4, 5, 6, 7, 8, 9}}},
		{Kind: demandKind, Host: "s", Rack: "r1", Seq: 1, Demand: many},
		{Kind: demandKind, Host: "u", Seq: 1},
	} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		sh.receive(b)
	}
	if len(sh.heard) != 0 {
		t.Errorf("heard %+v", sh.heard)
	}
	if len(said) != 5 || !strings.Contains(said[0], "a message from p refused: NIC rate -1") {
		t.Errorf("said %q", said)
	}
}

func TestShareFlag(t *testing.T) {
	var cfg Config
	f := shareFlag{&cfg.Share}
	if err := f.Set("125MB:100MB"); err != nil {
		t.Fatal(err)
	}
	if *cfg.Share != (ShareConfig{UplinkBps: 125e6, DownlinkBps: 100e6}) {
		t.Errorf("got %+v", *cfg.Share)
	}
	if err := f.Set("1000:2000:3000"); err != nil || cfg.Share.NICBps != 3000 {
		t.Errorf("with a NIC: %+v, %v", cfg.Share, err)
	}
	for _, bad := range []string{"", "125MB", "1:2:3:4", "x:1", "1:-2"} {
		if err := f.Set(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// receiveShaped reports whether the receive side's IFB, and an ingress
// qdisc on the data NIC, are there.
func (w *shapingWorker) receiveShaped(t *testing.T) (ifb, ingress bool) {
	t.Helper()
	err := shaping.Do(w.netns, func() error {
		_, err := netlink.LinkByName(shaping.IngressIFB(w.dev))
		ifb = err == nil
		link, err := netlink.LinkByName(w.dev)
		if err != nil {
			return err
		}
		qs, err := netlink.QdiscList(link)
		if err != nil {
			return err
		}
		for _, q := range qs {
			ingress = ingress || q.Attrs().Parent == netlink.HANDLE_INGRESS
		}
		return nil
	})
	if err != nil {
		t.Fatalf("receive side of %s in %s: %v", w.dev, w.netns, err)
	}
	return ifb, ingress
}

// With --shape-share the worker shapes its receive side too (an IFB and
// an ingress qdisc); killed with SIGKILL, it leaves neither behind: its
// guardian's cleanup removes them with the root qdisc, within the dead-man
// interval.
func TestShareReceiveSideGoneAfterSIGKILL(t *testing.T) {
	w := startShapingWorker(t, "--shape-share", "2MB:2MB")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ifb, ingress := w.receiveShaped(t); ifb && ingress {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no receive-side shaping 10 s after the worker shaped its NIC; log:\n%s", w.logText())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	took := w.waitUnshaped(t)
	w.waitGuardianGone(t)
	if ifb, ingress := w.receiveShaped(t); ifb || ingress {
		t.Errorf("after SIGKILL and the guardian's cleanup: IFB %v, ingress qdisc %v left", ifb, ingress)
	}
	t.Logf("root qdisc gone %v after SIGKILL; IFB and ingress qdisc gone with it", took.Round(time.Millisecond))
}
