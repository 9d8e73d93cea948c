package shaping

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// netnsDir is where named namespaces are bind-mounted (as by `ip netns`).
const netnsDir = "/var/run/netns"

// errGoexit is reported when fn ends its goroutine (runtime.Goexit) instead
// of returning.
var errGoexit = errors.New("shaping: function did not return (runtime.Goexit)")

// Do runs fn with its OS thread inside the named network namespace. fn runs
// on a dedicated goroutine whose thread is locked for fn's duration and
// returned to its original namespace afterwards (if that fails, the thread is
// discarded). Sockets created by fn belong to the namespace and keep working
// after Do returns; goroutines started by fn do not inherit the namespace.
func Do(netnsName string, fn func() error) error {
	h, err := netns.GetFromName(netnsName)
	if err != nil {
		return fmt.Errorf("shaping: open netns %s: %w", netnsName, err)
	}
	defer h.Close()
	return doIn(h, fn)
}

// StartIn starts cmd inside the named network namespace: the child inherits
// the namespace of the locked thread that forks it. The thread lives on
// afterwards (unless it could not leave the namespace), so
// SysProcAttr.Pdeathsig behaves as usual.
func StartIn(netnsName string, cmd *exec.Cmd) error {
	return Do(netnsName, cmd.Start)
}

// doIn runs fn on a locked thread inside target.
func doIn(target netns.NsHandle, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("shaping: current netns: %w", err)
			return
		}
		defer orig.Close()
		if err := netns.Set(target); err != nil {
			if netns.Set(orig) == nil {
				runtime.UnlockOSThread()
			}
			errc <- fmt.Errorf("shaping: enter netns: %w", err)
			return
		}
		ferr := errGoexit
		defer func() {
			// On failure the thread stays locked and dies with the goroutine.
			if netns.Set(orig) == nil {
				runtime.UnlockOSThread()
			}
			errc <- ferr
		}()
		ferr = fn()
	}()
	return <-errc
}

// newNamedNetns creates the named namespace and returns an open handle to it,
// leaving the caller's thread where it was.
func newNamedNetns(name string) (netns.NsHandle, error) {
	type result struct {
		h   netns.NsHandle
		err error
	}
	resc := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			resc <- result{netns.None(), err}
			return
		}
		defer orig.Close()
		h, err := netns.NewNamed(name)
		if netns.Set(orig) == nil {
			runtime.UnlockOSThread()
		} else if err == nil {
			err = errors.New("cannot return to the original netns")
		}
		if err != nil {
			h.Close()
			resc <- result{netns.None(), fmt.Errorf("shaping: create netns %s: %w", name, err)}
			return
		}
		resc <- result{h, nil}
	}()
	r := <-resc
	return r.h, r.err
}

// deleteNamedNetns removes the name of a namespace (the namespace itself goes
// when nothing uses it any more). A missing name is not an error.
func deleteNamedNetns(name string) error {
	p := filepath.Join(netnsDir, name)
	if err := unix.Unmount(p, unix.MNT_DETACH); err != nil &&
		!errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("shaping: unmount netns %s: %w", name, err)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		if errors.Is(err, unix.EBUSY) {
			// seen after a SIGKILL: `ip netns` later bind-mounted the
			// directory over itself, hiding the namespace's own mount
			// (listed in /proc/self/mountinfo), so the unmount above found
			// none; only the hiding mount's owner can know whether to undo it
			return fmt.Errorf("shaping: remove netns %s: %w (its mount is hidden by a later mount over %s, as `ip netns` makes; /proc/self/mountinfo lists both: unmount %s if nothing else uses it, then run again)", name, err, netnsDir, netnsDir)
		}
		return fmt.Errorf("shaping: remove netns %s: %w", name, err)
	}
	return nil
}

// namedNetns lists the names of the named namespaces.
func namedNetns() ([]string, error) {
	ents, err := os.ReadDir(netnsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// writeSysctl writes a /proc/sys file; path is relative to /proc/sys.
func writeSysctl(path, value string) error {
	return os.WriteFile(filepath.Join("/proc/sys", path), []byte(value), 0o644)
}

// disableIPv6 turns IPv6 off for one device ("all" and "default" included)
// of the calling thread's namespace. It does nothing on a kernel without IPv6.
func disableIPv6(dev string) error {
	if _, err := os.Stat("/proc/sys/net/ipv6"); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	err := writeSysctl("net/ipv6/conf/"+dev+"/disable_ipv6", "1")
	if err != nil {
		return fmt.Errorf("shaping: disable IPv6 on %s: %w", dev, err)
	}
	return nil
}

var errNoDev = unix.ENODEV

// in is Do for a function with a result: fn's result, made in the named
// namespace.
func in[T any](netnsName string, fn func() (T, error)) (T, error) {
	var v T
	err := Do(netnsName, func() (err error) {
		v, err = fn()
		return err
	})
	return v, err
}
