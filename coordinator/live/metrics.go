package live

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/racklab/racklab/coordinator/metricsrv"
)

// promMetrics are the coordinator's Prometheus metrics, for watching a live
// run; the records in OutDir remain the measurement.
type promMetrics struct {
	reg          *prometheus.Registry
	launched     *prometheus.CounterVec
	ended        *prometheus.CounterVec
	jobs         *prometheus.CounterVec
	running      prometheus.Gauge
	hostsAlive   prometheus.Gauge
	rejected     prometheus.Counter
	crossBytes   *prometheus.GaugeVec
	linkUtil     *prometheus.GaugeVec
	decisionSecs prometheus.Histogram
}

func newMetrics() *promMetrics {
	m := &promMetrics{reg: prometheus.NewRegistry()}
	m.launched = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "racklab_attempts_launched_total", Help: "Attempts dispatched to workers, by stage kind."}, []string{"kind"})
	m.ended = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "racklab_attempts_ended_total", Help: "Attempts ended, by outcome."}, []string{"outcome"})
	m.jobs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "racklab_jobs_finished_total", Help: "Jobs finished, by state."}, []string{"state"})
	m.running = prometheus.NewGauge(prometheus.GaugeOpts{Name: "racklab_attempts_running", Help: "Attempts running now."})
	m.hostsAlive = prometheus.NewGauge(prometheus.GaugeOpts{Name: "racklab_hosts_alive", Help: "Registered hosts not declared lost."})
	m.rejected = prometheus.NewCounter(prometheus.CounterOpts{Name: "racklab_messages_rejected_total", Help: "Malformed, unknown or misrouted messages dropped."})
	m.crossBytes = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "racklab_cross_rack_bytes", Help: "Cross-rack payload bytes of finished attempts so far, by source: engine (expected), workers (reported)."}, []string{"source"})
	m.linkUtil = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "racklab_rack_link_utilisation", Help: "Rack-link utilisation over the last sample, from the kernel counters."}, []string{"rack", "direction"})
	m.decisionSecs = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "racklab_decision_seconds", Help: "Time the policy took per scheduling decision.",
		Buckets: prometheus.ExponentialBuckets(1e-7, 4, 12)})
	m.reg.MustRegister(m.launched, m.ended, m.jobs, m.running, m.hostsAlive, m.rejected, m.crossBytes, m.linkUtil, m.decisionSecs)
	return m
}

// serve exposes the metrics on addr (port 0 picks one) and returns the
// address it listens on and a function that stops it.
func (m *promMetrics) serve(addr string, logf func(string, ...any)) (string, func(), error) {
	return metricsrv.Serve(m.reg, addr, logf)
}
