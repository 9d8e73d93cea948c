package shaping

import (
	"errors"
	"fmt"
	"sort"

	"github.com/vishvananda/netlink"
)

// Cleanup removes every namespace, link, bridge and qdisc made by a cluster
// with this prefix: the root namespace's management bridge and veths, and
// the named namespaces (whose links and qdiscs go with them). Missing
// objects are not an error. A namespace still used by a process (e.g. a
// worker that was not stopped) loses its name but lives on, disconnected,
// until that process exits. It refuses a prefix whose lock another
// process holds (a cluster that is running: *InUseError).
func Cleanup(prefix string) error {
	lock, err := LockPrefix(prefix) // a running cluster's is not ours to remove
	if err != nil {
		return err
	}
	defer lock.Release()
	h, err := netlink.NewHandle()
	if err != nil {
		return fmt.Errorf("shaping: netlink: %w", err)
	}
	defer h.Close()
	var errs []error
	links, err := listLinks(h)
	if err != nil {
		errs = append(errs, err)
	}
	// Veths first (deleting one end deletes its peer), then the bridge.
	sort.Slice(links, func(i, j int) bool { return links[i].Type() != "bridge" && links[j].Type() == "bridge" })
	for _, l := range links {
		if !owned(prefix, l.Attrs().Name) {
			continue
		}
		if err := h.LinkDel(l); err != nil && !isNotFound(err) {
			errs = append(errs, fmt.Errorf("shaping: delete link %s: %w", l.Attrs().Name, err))
		}
	}
	names, err := namedNetns()
	if err != nil {
		errs = append(errs, err)
	}
	for _, n := range names {
		if owned(prefix, n) {
			if err := deleteNamedNetns(n); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Leftovers lists the namespaces ("netns:<name>") and root-namespace links
// ("link:<name>") that a cluster with this prefix made and that are still
// present.
func Leftovers(prefix string) ([]string, error) {
	if !prefixRE.MatchString(prefix) {
		return nil, fmt.Errorf("shaping: invalid prefix %q", prefix)
	}
	var out []string
	names, err := namedNetns()
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if owned(prefix, n) {
			out = append(out, "netns:"+n)
		}
	}
	h, err := netlink.NewHandle()
	if err != nil {
		return nil, fmt.Errorf("shaping: netlink: %w", err)
	}
	defer h.Close()
	links, err := listLinks(h)
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		if owned(prefix, l.Attrs().Name) {
			out = append(out, "link:"+l.Attrs().Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// listLinks lists links, retrying a dump that the kernel interrupted.
func listLinks(h *netlink.Handle) ([]netlink.Link, error) {
	var err error
	for range 5 {
		var links []netlink.Link
		links, err = h.LinkList()
		if err == nil {
			return links, nil
		}
		if !errors.Is(err, netlink.ErrDumpInterrupted) {
			break
		}
	}
	return nil, fmt.Errorf("shaping: list links: %w", err)
}

func isNotFound(err error) bool {
	var nf netlink.LinkNotFoundError
	return errors.As(err, &nf) || errors.Is(err, errNoDev)
}
