package shaping

import (
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/racklab/racklab/internal/heldcount"
)

// HostNet is one emulated host.
type HostNet struct {
	Name    string // e.g. "r0h1"
	Rack    int
	InRack  int    // its index among its rack's hosts
	Netns   string // namespace name, e.g. "rl-r0h1"
	DataDev string // data interface name inside the namespace
	DataIP  net.IP // on the data network
	MgmtIP  net.IP // on the management network
}

// Cluster is an emulated cluster made by Up.
type Cluster struct {
	Spec  ClusterSpec
	Hosts []HostNet // rack-major order: rack 0 hosts, rack 1 hosts, ...
	// MgmtIP is the address of the management bridge in the root namespace:
	// the coordinator / NATS listens here.
	MgmtIP net.IP
	// MgmtNet is the management subnet.
	MgmtNet *net.IPNet
	// DataNet is the data subnet.
	DataNet *net.IPNet

	mu   sync.Mutex
	down bool
	lock *PrefixLock // held from Up until Down has removed everything
	// flatSeen holds flat mode's class counters across the classes'
	// lives (flatCounters); under mu.
	flatSeen heldcount.Held[int]
}

// Up first removes leftovers of an earlier run with the same prefix
// (Cleanup), then builds the cluster. On any error it removes everything it
// made before returning.
func Up(spec ClusterSpec) (c *Cluster, err error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec.Racks = append([]RackSpec(nil), spec.Racks...)
	lock, err := LockPrefix(spec.Prefix)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			lock.Release()
		}
	}()
	if err := Cleanup(spec.Prefix); err != nil {
		return nil, fmt.Errorf("shaping: cleanup before up: %w", err)
	}
	defer func() {
		if err != nil {
			if cerr := Cleanup(spec.Prefix); cerr != nil {
				err = errors.Join(err, cerr)
			}
			c = nil
		}
	}()
	b, err := newBuilder(spec)
	if err != nil {
		return nil, err
	}
	defer b.close()
	if err := b.build(); err != nil {
		return nil, err
	}
	c = &Cluster{
		Spec:    spec,
		lock:    lock,
		MgmtIP:  b.mgmt.bridgeIP(),
		MgmtNet: b.mgmt.net(),
		DataNet: &net.IPNet{IP: net.IPv4(10, dataOctet(spec.Prefix), 0, 0).To4(), Mask: dataMask},
	}
	for r, rs := range spec.Racks {
		for h := 0; h < rs.Hosts; h++ {
			c.Hosts = append(c.Hosts, HostNet{
				Name:    hostName(r, h),
				Rack:    r,
				InRack:  h,
				Netns:   hostNetns(spec.Prefix, r, h),
				DataDev: DataDev,
				DataIP:  dataIP(spec.Prefix, r, h),
				MgmtIP:  b.mgmt.hostIP(len(c.Hosts)),
			})
		}
	}
	return c, nil
}

// Down removes everything the cluster made. It is idempotent.
func (c *Cluster) Down() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := Cleanup(c.Spec.Prefix); err != nil {
		return err
	}
	c.down = true
	c.lock.Release()
	return nil
}

func (c *Cluster) isDown() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.down
}

// FabricNetns is the name of the namespace holding the bridges and rack
// links.
func (c *Cluster) FabricNetns() string { return fabricNetns(c.Spec.Prefix) }

// RackHosts returns the hosts of rack r.
func (c *Cluster) RackHosts(r int) []HostNet {
	var out []HostNet
	for _, h := range c.Hosts {
		if h.Rack == r {
			out = append(out, h)
		}
	}
	return out
}

// RackDataIPs returns the data addresses of rack r's hosts (the peer set of
// a HostShaper class).
func (c *Cluster) RackDataIPs(r int) []net.IP {
	var out []net.IP
	for _, h := range c.RackHosts(r) {
		out = append(out, h.DataIP)
	}
	return out
}
