// Package metricsrv serves a Prometheus registry over HTTP at /metrics,
// for the coordinator and the workers alike.
package metricsrv

import (
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Serve exposes reg on addr (host:port; port 0 picks one) and returns the
// address it listens on and a function that stops it. A failure after
// the start only ends the metrics, never the process that serves them;
// logf says so, so that a scrape's silence has its reason in the log.
func Serve(reg *prometheus.Registry, addr string, logf func(format string, args ...any)) (bound string, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	return ln.Addr().String(), serveOn(reg, ln, logf), nil
}

// serveOn serves reg on ln until the returned stop.
func serveOn(reg *prometheus.Registry, ln net.Listener, logf func(format string, args ...any)) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logf("metrics on %s stopped: %v", ln.Addr(), err)
		}
	}()
	return func() { srv.Close() }
}
