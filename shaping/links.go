package shaping

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/vishvananda/netlink"
)

// attach puts dev on bridge br and brings it up.
func (b *builder) attach(h *netlink.Handle, dev, br string) error {
	l, err := h.LinkByName(dev)
	if err != nil {
		return fmt.Errorf("shaping: link %s: %w", dev, err)
	}
	m, err := h.LinkByName(br)
	if err != nil {
		return fmt.Errorf("shaping: bridge %s: %w", br, err)
	}
	if err := h.LinkSetMasterByIndex(l, m.Attrs().Index); err != nil {
		return fmt.Errorf("shaping: attach %s to %s: %w", dev, br, err)
	}
	if err := h.LinkSetUp(l); err != nil {
		return fmt.Errorf("shaping: set %s up: %w", dev, err)
	}
	return nil
}

func (b *builder) addAddr(h *netlink.Handle, dev string, ip net.IP, mask net.IPMask) error {
	l, err := h.LinkByName(dev)
	if err != nil {
		return fmt.Errorf("shaping: link %s: %w", dev, err)
	}
	a := &netlink.Addr{IPNet: &net.IPNet{IP: ip, Mask: mask}}
	if err := h.AddrAdd(l, a); err != nil {
		return fmt.Errorf("shaping: address %v on %s: %w", a.IPNet, dev, err)
	}
	return nil
}

func (b *builder) up(h *netlink.Handle, dev string) error {
	l, err := h.LinkByName(dev)
	if err != nil {
		return fmt.Errorf("shaping: link %s: %w", dev, err)
	}
	if err := h.LinkSetUp(l); err != nil {
		return fmt.Errorf("shaping: set %s up: %w", dev, err)
	}
	return nil
}

// waitUp waits until the hosts' data and management interfaces report
// carrier, so that the cluster is usable when Up returns.
func (b *builder) waitUp(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, name := range b.wait {
		err := Do(name, func() error {
			for {
				ready := true
				for _, dev := range []string{DataDev, MgmtDev} {
					l, err := netlink.LinkByName(dev)
					if err != nil {
						return err
					}
					if l.Attrs().RawFlags&0x10000 == 0 { // IFF_LOWER_UP
						ready = false
					}
				}
				if ready {
					return nil
				}
				if time.Now().After(deadline) {
					return errors.New("interfaces not up in time")
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
		if err != nil {
			return fmt.Errorf("shaping: %s: %w", name, err)
		}
	}
	return nil
}
