package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Signals are the signals a Context catches, unless the process was
// started with them ignored.
var Signals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// caught is the number of the first signal a Context caught, 0 if none.
var caught atomic.Int32

// exit ends the process; a test replaces it.
var exit = os.Exit

// Context returns a context that the first of Signals cancels; stop
// releases the signals (call it when the command returns). A second
// signal writes to w that the command is removing what it made; a third
// exits at once with 128 + its number, leaving whatever is not yet
// removed. The notes are written from goroutines of their own, so that a
// w that blocks never delays the exit: w must be safe for concurrent use
// (os.Stderr is).
func Context(parent context.Context, w io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, len(Signals))
	for _, s := range Signals {
		// a signal the process was started with ignored (nohup's SIGHUP,
		// a background job's SIGINT) stays ignored: Notify would undo it
		if !signal.Ignored(s) {
			signal.Notify(ch, s)
		}
	}
	done := make(chan struct{})
	go func() {
		for n := 1; ; n++ {
			var s os.Signal
			select {
			case s = <-ch:
			case <-done:
				return
			}
			num := s.(syscall.Signal)
			switch n {
			case 1:
				caught.CompareAndSwap(0, int32(num))
				// the terminal's signal stops the command's pipe readers
				// too (tee, less): a write to a stdout or stderr nobody
				// reads fails with EPIPE from now on, rather than kill
				// the process with SIGPIPE before it removed what it
				// made. Notify, not Ignore: the commands the cleanup
				// runs do not inherit it. Left so after stop: the
				// command's last words would kill it as well, and hide
				// its 128 + num status.
				signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
				cancel()
			case 2:
				note(w, "%v: stopping: removing what this command made and keeping what it measured; a third signal exits at once and leaves what is not yet removed\n", s)
			default:
				select {
				case <-note(w, "%v: exiting now\n", s):
				case <-time.After(noteWait):
				}
				exit(128 + int(num))
			}
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel()
		})
	}
}

// noteWait is how long the third signal waits for its note to be written
// before it exits all the same.
const noteWait = 100 * time.Millisecond

// note writes to w in a goroutine of its own, and says when it is
// written: a w that blocks (a terminal stopped by Ctrl-S, a pipe nobody
// reads, an ssh session that hangs) must not keep the signals that
// follow from being handled, the third's exit above all.
func note(w io.Writer, format string, a ...any) <-chan struct{} {
	written := make(chan struct{})
	go func() {
		defer close(written)
		fmt.Fprintf(w, format, a...)
	}()
	return written
}

// Caught is the first signal a Context caught, and whether there was one.
func Caught() (syscall.Signal, bool) {
	n := caught.Load()
	return syscall.Signal(n), n != 0
}

// ExitStatus is the status of a command that failed: 128 + the signal's
// number if a Context's signal stopped it, 1 otherwise.
func ExitStatus() int {
	if s, ok := Caught(); ok {
		return 128 + int(s)
	}
	return 1
}
