package dataplane

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// DefaultCongestion is the TCP congestion control the data plane's sockets
// use unless told otherwise: Linux's default, and what the papers' Hadoop
// clusters ran. The simulator's max-min sharing stands for flows of a
// loss-based algorithm sharing a queue; a host whose system default is
// another (BBR, say) would otherwise make the emulated cluster measure that
// algorithm instead. docs/fidelity.md (difference 6) has the measurement.
const DefaultCongestion = "cubic"

// setCongestion gives a TCP socket the named congestion control; an empty
// name leaves the system's default.
func setCongestion(fd int, name string) error {
	if name == "" {
		return nil
	}
	if err := unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, name); err != nil {
		return congestionError(name, err)
	}
	return nil
}

// congestionError says why a congestion control could not be set, with
// what the kernel offers.
func congestionError(name string, err error) error {
	avail := sysctlList("net/ipv4/tcp_available_congestion_control")
	switch {
	case errors.Is(err, unix.ENOENT) || (avail != nil && !slices.Contains(avail, name)):
		return fmt.Errorf("TCP congestion control %q is not available in this kernel (available: %s; load its module, e.g. tcp_%s)", name, strings.Join(avail, " "), name)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("TCP congestion control %q is not allowed for this process (allowed: %s; run as root or add it to net.ipv4.tcp_allowed_congestion_control)",
			name, strings.Join(sysctlList("net/ipv4/tcp_allowed_congestion_control"), " "))
	}
	return fmt.Errorf("set TCP congestion control %q: %w", name, err)
}

// sysctlList reads a space-separated /proc/sys list, or nil.
func sysctlList(path string) []string {
	b, err := os.ReadFile("/proc/sys/" + path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

// CheckCongestion reports whether this process can give its TCP sockets the
// named congestion control ("" always can: the system's default), so that a
// worker refuses to start rather than fail its first transfer.
func CheckCongestion(name string) error {
	if name == "" {
		return nil
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return fmt.Errorf("check TCP congestion control %q: %w", name, err)
	}
	defer unix.Close(fd)
	return setCongestion(fd, name)
}

// SetCongestion gives an open TCP connection the named congestion control
// ("": leave it as it is).
func SetCongestion(conn *net.TCPConn, name string) error {
	return onSocket(conn, func(fd int) error { return setCongestion(fd, name) })
}

// Congestion is the congestion control of a TCP connection.
func Congestion(conn *net.TCPConn) (string, error) {
	var name string
	err := onSocket(conn, func(fd int) (err error) {
		name, err = unix.GetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION)
		return err
	})
	return strings.TrimRight(name, "\x00"), err
}

// Listen opens a TCP listener on addr whose connections use the named
// congestion control ("": the system's default): an accepted socket
// inherits its listener's.
func Listen(addr, congestion string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) { serr = setCongestion(int(fd), congestion) }); err != nil {
			return err
		}
		return serr
	}}
	return lc.Listen(context.Background(), "tcp", addr)
}
