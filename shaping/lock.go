package shaping

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A prefix names everything a cluster makes, and Cleanup removes whatever
// has that prefix: two clusters with one prefix would take each other
// down, and a cleanup would remove a cluster that is still running. So the
// process that builds a cluster holds its prefix's lock for the cluster's
// lifetime, and Up and Cleanup refuse a prefix that another process holds.
//
// The lock is a socket bound to an abstract address of this network
// namespace. The kernel frees it when its holder exits, however it exits:
// a crash leaves no stale lock and no file behind. Within one process the
// lock is counted, so that a holder may build and clean up its own
// cluster.

// PrefixLock is a hold on a prefix's lock; Release gives it up.
type PrefixLock struct {
	prefix string
	once   sync.Once
}

// InUseError is the refusal of a prefix another process holds.
type InUseError struct {
	Prefix  string
	PID     int    // 0 if the holder could not be asked
	Command string // the holder's command line, if it could be read
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("shaping: cluster %s is in use by %s: give this one another prefix, or stop that one first", e.Prefix, e.Holder())
}

// Holder names the process that holds the prefix: "process 42 (bench run
// demo.yaml)".
func (e *InUseError) Holder() string {
	if e.PID <= 0 {
		return "another process"
	}
	who := "process " + strconv.Itoa(e.PID)
	if e.Command != "" {
		who += " (" + e.Command + ")"
	}
	return who
}

var held = struct {
	sync.Mutex
	locks map[string]*heldLock
}{locks: map[string]*heldLock{}}

type heldLock struct {
	ln    *net.UnixListener
	holds int
}

func lockAddr(prefix string) *net.UnixAddr {
	return &net.UnixAddr{Name: "@racklab-cluster-" + prefix, Net: "unix"}
}

// LockPrefix takes the prefix's lock, or says who holds it
// (*InUseError).
func LockPrefix(prefix string) (*PrefixLock, error) {
	if !prefixRE.MatchString(prefix) {
		return nil, fmt.Errorf("shaping: invalid prefix %q", prefix)
	}
	held.Lock()
	defer held.Unlock()
	if h := held.locks[prefix]; h != nil {
		h.holds++
		return &PrefixLock{prefix: prefix}, nil
	}
	ln, err := net.ListenUnix("unix", lockAddr(prefix))
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, holder(prefix)
	}
	if err != nil {
		return nil, fmt.Errorf("shaping: lock cluster %s: %w", prefix, err)
	}
	// whoever asks who holds the lock connects; nothing is said
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed
			}
			c.Close()
		}
	}()
	held.locks[prefix] = &heldLock{ln: ln, holds: 1}
	return &PrefixLock{prefix: prefix}, nil
}

// Release gives up this hold; the lock is free when every hold of this
// process is released. A second Release does nothing.
func (l *PrefixLock) Release() {
	if l == nil {
		return
	}
	l.once.Do(func() {
		held.Lock()
		defer held.Unlock()
		h := held.locks[l.prefix]
		if h.holds--; h.holds == 0 {
			h.ln.Close()
			delete(held.locks, l.prefix)
		}
	})
}

// InUse reports who holds the prefix's lock (*InUseError), or nil if
// nobody else does.
func InUse(prefix string) error {
	l, err := LockPrefix(prefix)
	if err != nil {
		return err
	}
	l.Release()
	return nil
}

// holder is the InUseError of a prefix whose lock is held: the holder's
// pid is the listening socket's credentials (SO_PEERCRED of a connection
// to it).
func holder(prefix string) error {
	e := &InUseError{Prefix: prefix}
	d := net.Dialer{Timeout: time.Second}
	c, err := d.Dial("unix", lockAddr(prefix).Name)
	if err != nil {
		return e
	}
	defer c.Close()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		return e
	}
	var cred *unix.Ucred
	_ = raw.Control(func(fd uintptr) { cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) })
	if err != nil || cred == nil || cred.Pid <= 0 {
		return e
	}
	e.PID = int(cred.Pid)
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(e.PID) + "/cmdline"); err == nil {
		b = bytes.TrimRight(b, "\x00")
		e.Command = string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		if len(e.Command) > 200 {
			e.Command = e.Command[:200] + "…"
		}
	}
	return e
}

// mgmtChoice is the in-process half of lockMgmtChoice.
var mgmtChoice sync.Mutex

// lockMgmtChoice takes the machine-wide lock under which a cluster
// chooses and claims its management subnet (builder.claimMgmt): an
// abstract socket, as a prefix's lock, held for the few milliseconds of
// the claim. It waits for another holder, up to a minute.
func lockMgmtChoice() (release func(), err error) {
	mgmtChoice.Lock()
	addr := &net.UnixAddr{Name: "@racklab-mgmt-subnet", Net: "unix"}
	deadline := time.Now().Add(time.Minute)
	for {
		ln, err := net.ListenUnix("unix", addr)
		if err == nil {
			return func() { ln.Close(); mgmtChoice.Unlock() }, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			mgmtChoice.Unlock()
			return nil, fmt.Errorf("shaping: the lock on the choice of a management subnet: %w", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
