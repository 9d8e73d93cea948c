package dataplane

import (
	"errors"
	"fmt"
	"net"

	"github.com/racklab/racklab/internal/traffic"
	"golang.org/x/sys/unix"
)

// Class is a traffic class; the classes, their names and default DSCPs
// live in internal/traffic.
type Class = traffic.Class

// Traffic classes.
const (
	Input      = traffic.Input
	Shuffle    = traffic.Shuffle
	Dependent  = traffic.Dependent
	Duplicate  = traffic.Duplicate
	Output     = traffic.Output
	Background = traffic.Background
	Control    = traffic.Control
	NumClasses = traffic.NumClasses
)

// ParseClass turns a class name ("input", "shuffle", ...) into a Class.
func ParseClass(s string) (Class, error) { return traffic.ParseClass(s) }

// DSCP returns the default DSCP of a class (0, best effort, for an unknown
// class).
func DSCP(c Class) uint8 { return c.DSCP() }

// MaxDSCP is the largest DSCP value (6 bits).
const MaxDSCP = 63

// SetDSCP marks a TCP socket's outgoing packets with dscp: IP_TOS for IPv4,
// IPV6_TCLASS for IPv6 (and IP_TOS too, for IPv4-mapped peers of a dual-stack
// socket).
func SetDSCP(conn *net.TCPConn, dscp uint8) error {
	if dscp > MaxDSCP {
		return fmt.Errorf("dscp %d out of range 0-%d", dscp, MaxDSCP)
	}
	return onSocket(conn, func(fd int) error { return setTOS(fd, dscp) })
}

// onSocket runs f on a connection's socket.
func onSocket(conn *net.TCPConn, f func(fd int) error) error {
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

func setTOS(fd int, dscp uint8) error {
	tos := int(dscp) << 2
	dom, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return fmt.Errorf("set dscp: %w", err)
	}
	switch dom {
	case unix.AF_INET:
		err = unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_TOS, tos)
	case unix.AF_INET6:
		err = unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_TCLASS, tos)
		// A dual-stack socket talking to an IPv4 peer sends with IP_TOS.
		if err4 := unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_TOS, tos); err != nil && err4 == nil {
			err = nil
		}
	default:
		return fmt.Errorf("set dscp: socket family %d is not IP", dom)
	}
	if err != nil {
		return fmt.Errorf("set dscp: %w", err)
	}
	return nil
}

// GetDSCP returns the DSCP a TCP socket marks its packets with.
func GetDSCP(conn *net.TCPConn) (uint8, error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return 0, err
	}
	v4 := false
	if a, ok := conn.RemoteAddr().(*net.TCPAddr); ok && a.IP.To4() != nil {
		v4 = true
	}
	var tos int
	var gerr error
	err = rc.Control(func(fd uintptr) {
		var dom int
		if dom, gerr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN); gerr != nil {
			return
		}
		if dom == unix.AF_INET || v4 {
			tos, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TOS)
		} else {
			tos, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_TCLASS)
		}
	})
	if err == nil {
		err = gerr
	}
	if err != nil {
		return 0, fmt.Errorf("get dscp: %w", err)
	}
	return uint8(tos>>2) & MaxDSCP, nil
}

var errNotTCP = errors.New("not a TCP connection")
