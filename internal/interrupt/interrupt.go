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
// removed.
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
				cancel()
			case 2:
				fmt.Fprintf(w, "%v: stopping: removing what this command made and keeping what it measured; a third signal exits at once and leaves what is not yet removed\n", s)
			default:
				fmt.Fprintf(w, "%v: exiting now\n", s)
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
