package agent

import (
	"fmt"
	"os"
	"testing"

	"github.com/racklab/racklab/shaping"
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
		if err := shaping.Do(h.Netns, func() (err error) { s, err = newShaper(h.DataDev, "r0", 1e6, prios); return err }); err != nil {
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
