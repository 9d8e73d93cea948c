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
// the start only ends the metrics, never the process that serves them.
func Serve(reg *prometheus.Registry, addr string) (bound string, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err
		}
	}()
	return ln.Addr().String(), func() { srv.Close() }, nil
}
