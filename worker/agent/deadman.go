package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/vishvananda/netlink"
)

// The dead-man: a worker that shapes its own traffic starts a guardian, a
// copy of its own binary in its own session, holding the read end of a
// pipe. The worker writes a refresh byte every quarter interval; when the
// pipe ends without a goodbye (the worker died, by any signal) or stays
// silent for a whole interval (the worker is stopped or starved), the
// guardian removes the worker's shaping from its data NIC and exits. A
// SIGKILLed or frozen worker thus leaves no qdisc behind for longer than
// the interval.

// MinDeadMan is the shortest dead-man interval a worker accepts: below it,
// a busy host's scheduling delays would strip a live worker's shaping.
const MinDeadMan = 100 * time.Millisecond

const (
	refreshByte = '.'
	// goodbyeByte tells the guardian that the worker removed its shaping
	// itself: leave the NIC alone (a worker restarted meanwhile may
	// already have installed its own) and exit.
	goodbyeByte = 'q'
)

// guardian is the worker's side of the dead-man: the child process and
// the pipe it is refreshed through.
type guardian struct {
	cmd      *exec.Cmd
	pipe     *os.File
	interval time.Duration
	stopc    chan bool     // the worker is leaving; true: say goodbye
	done     chan struct{} // closed when the refresher has let go of the pipe
	exited   chan struct{} // closed when the child has been reaped
	lost     chan error    // the guardian went away while the worker runs
	stopOnce sync.Once
}

// spawnGuardian starts the guardian of the shaping on dev: this very
// binary, re-executed through /proc/self/exe (so even if the file on disk
// was replaced since), with guardArgs, which must make it run runGuard.
// The child inherits the worker's network namespace, as children do.
func spawnGuardian(guardArgs []string, dev string, interval time.Duration, stderr io.Writer) (*guardian, error) {
	if interval < MinDeadMan {
		return nil, fmt.Errorf("dead-man interval %v is below the minimum %v", interval, MinDeadMan)
	}
	if len(guardArgs) == 0 {
		return nil, errors.New("dead-man: no command to start the guardian with (Config.GuardArgs)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("dead-man: pipe: %w", err)
	}
	args := append(append([]string(nil), guardArgs...), "--data-dev", dev, "--deadman", interval.String())
	cmd := exec.Command("/proc/self/exe", args...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdin = r
	cmd.Stdout, cmd.Stderr = stderr, stderr
	// its own session: a signal to the worker's process group or terminal
	// (Ctrl-C, kill -- -PGID) must not take the guardian down with it
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("dead-man: start the guardian (/proc/self/exe %v): %w", args, err)
	}
	r.Close() // the child holds the read end; the worker holds only the write end
	g := &guardian{cmd: cmd, pipe: w, interval: interval, stopc: make(chan bool, 1),
		done: make(chan struct{}), exited: make(chan struct{}), lost: make(chan error, 1)}
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(g.exited)
	}()
	go g.refresh(func() error { return waitErr })
	return g, nil
}

// startGuardian starts the worker's guardian if the dead-man is on.
func (w *Worker) startGuardian() error {
	if w.cfg.DeadMan <= 0 {
		return nil
	}
	var err error
	if w.guard, err = spawnGuardian(w.cfg.GuardArgs, w.cfg.DataDev, w.cfg.DeadMan, os.Stderr); err != nil {
		return fmt.Errorf("worker %s: %w", w.cfg.Host, err)
	}
	w.cfg.Logf("worker %s: dead-man guardian (pid %d) removes the shaping on %s if this worker stops refreshing it for %v",
		w.cfg.Host, w.guard.cmd.Process.Pid, w.cfg.DataDev, w.cfg.DeadMan)
	return nil
}

// stopIfUnguarded stops the worker (calls stop) if its guardian goes away
// before ctx ends: the shaping may already be gone (the guardian found the
// worker silent) and nobody would remove it if the worker died, so the
// worker must not run on as if shaped. The returned function, called once
// ctx has ended, waits for the watch and returns why it stopped the worker,
// or nil.
func (w *Worker) stopIfUnguarded(ctx context.Context, stop context.CancelFunc) func() error {
	var lost error
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if w.guard == nil {
			return
		}
		select {
		case err := <-w.guard.Lost():
			lost = fmt.Errorf("worker %s: %w: its shaping on %s may be gone; stopping", w.cfg.Host, err, w.cfg.DataDev)
			w.cfg.Logf("%v", lost)
			stop()
		case <-ctx.Done():
		}
	}()
	return func() error {
		<-watched
		return lost
	}
}

// refresh writes a refresh byte every quarter interval until the worker
// stops it or the guardian goes away.
func (g *guardian) refresh(waitErr func() error) {
	defer close(g.done)
	defer g.pipe.Close()
	t := time.NewTicker(g.interval / 4)
	defer t.Stop()
	for {
		select {
		case goodbye := <-g.stopc:
			if goodbye {
				_ = g.pipe.SetWriteDeadline(time.Now().Add(g.interval))
				_, _ = g.pipe.Write([]byte{goodbyeByte})
			}
			return
		case <-g.exited:
			g.lost <- fmt.Errorf("dead-man guardian (pid %d) exited (%v)", g.cmd.Process.Pid, waitErr())
			return
		case <-t.C:
			// a guardian that stopped reading (frozen itself) must not
			// block the worker once the pipe's buffer is full
			_ = g.pipe.SetWriteDeadline(time.Now().Add(g.interval))
			if _, err := g.pipe.Write([]byte{refreshByte}); err != nil {
				// it has gone: most likely it found the worker silent
				// for a whole interval and removed the shaping
				g.lost <- fmt.Errorf("dead-man guardian (pid %d) is gone: %w", g.cmd.Process.Pid, err)
				return
			}
		}
	}
}

// Lost reports the guardian's disappearance while the worker runs: the
// shaping may have been removed and would not be if the worker died.
func (g *guardian) Lost() <-chan error { return g.lost }

// stop ends the guardian: with goodbye (the worker removed its shaping
// itself) it exits leaving the NIC alone; without, it removes the shaping
// as if the worker had died. stop waits for it to exit (killing it after
// a grace period) so that no guardian outlives its worker. Idempotent.
func (g *guardian) stop(goodbye bool) {
	g.stopOnce.Do(func() {
		g.stopc <- goodbye
		<-g.done
		select {
		case <-g.exited:
		case <-time.After(5 * time.Second):
			_ = g.cmd.Process.Kill()
			<-g.exited
		}
	})
}

// runGuard is the guardian's side, what `worker --guard` runs: it watches
// the refreshes on stdin and, if the worker dies or falls silent, removes
// its shaping from dev and exits.
func runGuard(log io.Writer, dev string, interval time.Duration) error {
	if dev == "" {
		return errors.New("--guard: --data-dev is required")
	}
	if interval < MinDeadMan {
		return fmt.Errorf("--guard: --deadman %v is below the minimum %v", interval, MinDeadMan)
	}
	// Its life is bound to the pipe alone: signals meant for the worker
	// (a service manager's SIGTERM to the whole group, a terminal's
	// hangup) must not end it before the worker has cleaned up or died.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	parent := os.Getppid()
	reason, remove := watch(os.Stdin, interval, func() bool { return os.Getppid() == parent })
	if !remove {
		return nil
	}
	fmt.Fprintf(log, "worker guardian (worker pid %d): %s: removing its shaping from %s\n", parent, reason, dev)
	// what `worker --cleanup` does to the NIC, so that both remove
	// whatever the shaper installs
	err := Cleanup(log, dev, nil)
	var nf netlink.LinkNotFoundError
	if errors.As(err, &nf) {
		return nil // the device went (its namespace was torn down), and its qdiscs with it
	}
	if err != nil {
		return fmt.Errorf("worker guardian: %w", err)
	}
	return nil
}

// watch reads the worker's refreshes from r until they say what to do. It
// returns remove=false on a goodbye; remove=true, with the reason, when r
// ends or fails (the worker died), when nothing came for a whole interval
// (the worker is stuck), or when parentAlive, checked every quarter
// interval, says the worker is gone (its end of the pipe leaked elsewhere).
func watch(r io.Reader, interval time.Duration, parentAlive func() bool) (reason string, remove bool) {
	got := make(chan byte, 16)
	ended := make(chan error, 1)
	// the reader is left blocked if the guardian decides first: the
	// process exits right after
	go func() {
		buf := make([]byte, 64)
		for {
			n, err := r.Read(buf)
			for _, b := range buf[:n] {
				got <- b
			}
			if err != nil {
				ended <- err
				return
			}
		}
	}()
	silence := time.NewTimer(interval)
	defer silence.Stop()
	check := time.NewTicker(interval / 4)
	defer check.Stop()
	for {
		select {
		case b := <-got:
			if b == goodbyeByte {
				return "", false
			}
			silence.Reset(interval)
		case err := <-ended:
			// bytes read before the end are in got: a goodbye among them
			// wins
			for {
				select {
				case b := <-got:
					if b == goodbyeByte {
						return "", false
					}
					continue
				default:
				}
				break
			}
			if errors.Is(err, io.EOF) {
				return "the worker exited without removing its shaping", true
			}
			return fmt.Sprintf("reading the worker's refreshes: %v", err), true
		case <-silence.C:
			return fmt.Sprintf("no refresh from the worker for %v (stopped or stuck)", interval), true
		case <-check.C:
			if !parentAlive() {
				return "the worker is gone", true
			}
		}
	}
}
