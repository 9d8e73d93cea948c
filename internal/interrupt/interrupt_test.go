package interrupt

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the signal goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within 5 s", what)
		}
	}
}

// SIGHUP (a closed terminal) stops a command as SIGINT does: the first
// cancels, the second is answered, the third exits with 128 + 1.
func TestThreeSignals(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("started with SIGHUP ignored (nohup): TestIgnoredStaysIgnored covers that")
	}
	var out syncBuffer
	status := make(chan int, 1)
	exit = func(code int) { status <- code }
	defer func() { exit = os.Exit }()
	ctx, stop := Context(context.Background(), &out)
	defer stop()
	if _, ok := Caught(); ok {
		t.Fatal("a signal caught before any was sent")
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGHUP did not cancel the context")
	}
	if s, ok := Caught(); !ok || s != syscall.SIGHUP || ExitStatus() != 129 {
		t.Fatalf("caught %v %v, exit status %d; want hangup, 129", s, ok, ExitStatus())
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second signal's note", func() bool { return strings.Contains(out.String(), "a third signal exits at once") })
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wantThirdSignalExit(t, status, "")
}

// A process started with SIGHUP ignored (a worker under nohup, whose
// ssh session closes) keeps ignoring it: the child below, started so,
// sends itself SIGHUP and must neither die nor be cancelled.
func TestIgnoredStaysIgnored(t *testing.T) {
	if os.Getenv("INTERRUPT_TEST_CHILD") == "1" {
		ctx, stop := Context(context.Background(), os.Stderr)
		defer stop()
		_ = syscall.Kill(syscall.Getpid(), syscall.SIGHUP)
		select {
		case <-ctx.Done():
			os.Exit(3)
		case <-time.After(200 * time.Millisecond):
			os.Exit(0)
		}
	}
	// the child inherits this process's ignoring of SIGHUP across exec
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestIgnoredStaysIgnored$")
	cmd.Env = append(os.Environ(), "INTERRUPT_TEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child, started with SIGHUP ignored, did not ignore it: %v\n%s", err, out)
	}
}

// blockedWriter is a stderr nobody reads (a terminal stopped by Ctrl-S,
// a pipe whose reader hangs): a write blocks until the test ends.
type blockedWriter struct{ release chan struct{} }

func (w blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	return len(p), nil
}

// The third signal exits at once also when the notes cannot be written:
// it is the way out of a command that hangs.
func TestThirdSignalExitsWhenOutputBlocks(t *testing.T) {
	if signal.Ignored(syscall.SIGTERM) {
		t.Skip("started with SIGTERM ignored")
	}
	// never released: a goroutine stuck in it must not reach exit once
	// the test restored os.Exit
	w := blockedWriter{make(chan struct{})}
	status := make(chan int, 1)
	exit = func(code int) { status <- code }
	defer func() { exit = os.Exit }()
	ctx, stop := Context(context.Background(), w)
	defer stop()
	for i := 0; i < 3; i++ {
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			<-ctx.Done()
		}
		// one at a time, as a user sends them
		time.Sleep(20 * time.Millisecond)
	}
	wantThirdSignalExit(t, status, ": the goroutine is stuck writing the second's note")
}

// wantThirdSignalExit waits for the exit a third SIGTERM makes, with its
// status; why says what a missing exit means.
func wantThirdSignalExit(t *testing.T, status <-chan int, why string) {
	t.Helper()
	select {
	case code := <-status:
		if code != 128+int(syscall.SIGTERM) {
			t.Fatalf("the third signal exited with %d, want %d", code, 128+int(syscall.SIGTERM))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the third signal did not exit" + why)
	}
}

// Ctrl-C on 'bench local ... 2>&1 | tee log' stops tee as well: the
// command's cleanup then logs to a pipe nobody reads, and must not be
// killed by SIGPIPE before it removed what it made. The child below,
// its stderr such a pipe, stops on SIGINT and logs while it cleans up.
func TestCleanupOutlivesAClosedStderr(t *testing.T) {
	if cleaned := os.Getenv("INTERRUPT_TEST_CLEANED"); cleaned != "" {
		ctx, stop := Context(context.Background(), os.Stderr)
		defer stop()
		_ = syscall.Kill(syscall.Getpid(), syscall.SIGINT)
		<-ctx.Done()
		os.Stderr.WriteString("removing what this command made\n")
		if err := os.WriteFile(cleaned, nil, 0o644); err != nil {
			os.Exit(4)
		}
		os.Exit(0)
	}
	if signal.Ignored(syscall.SIGINT) {
		t.Skip("started with SIGINT ignored")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // tee, which the Ctrl-C stopped too
	defer w.Close()
	cleaned := filepath.Join(t.TempDir(), "cleaned")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCleanupOutlivesAClosedStderr$")
	cmd.Env = append(os.Environ(), "INTERRUPT_TEST_CLEANED="+cleaned)
	cmd.Stderr = w
	err = cmd.Run()
	if _, serr := os.Stat(cleaned); err != nil || serr != nil {
		t.Fatalf("the child ended with %v before its cleanup finished (%v)", err, serr)
	}
}
