package metricsrv

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics that stop for another reason than their stop say why in the
// log: before, the server's error was dropped, and a scrape's silence
// had no reason anywhere.
func TestAStoppedServerSaysWhy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logged := make(chan string, 1)
	stop := serveOn(prometheus.NewRegistry(), ln, func(format string, args ...any) { logged <- fmt.Sprintf(format, args...) })
	defer stop()
	ln.Close() // the listener fails under the server, as a dead socket would
	select {
	case msg := <-logged:
		if !strings.Contains(msg, "metrics on "+ln.Addr().String()+" stopped:") {
			t.Errorf("logged %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing logged")
	}
}

// A stop is not a failure: nothing is logged.
func TestStopLogsNothing(t *testing.T) {
	logged := make(chan string, 1)
	_, stop, err := Serve(prometheus.NewRegistry(), "127.0.0.1:0", func(format string, args ...any) { logged <- fmt.Sprintf(format, args...) })
	if err != nil {
		t.Fatal(err)
	}
	stop()
	select {
	case msg := <-logged:
		t.Errorf("logged %q after a stop", msg)
	case <-time.After(200 * time.Millisecond):
	}
}
