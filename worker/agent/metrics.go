package agent

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/worker/dataplane"
)

var levelNames = [wire.NumLevels]string{"local", "rack", "cross"}

// workerMetrics are a worker's Prometheus metrics, for watching a live run.
type workerMetrics struct {
	reg     *prometheus.Registry
	running prometheus.GaugeFunc
	ended   *prometheus.CounterVec
	read    *prometheus.CounterVec
}

func newWorkerMetrics(w *Worker) *workerMetrics {
	m := &workerMetrics{reg: prometheus.NewRegistry()}
	m.running = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "racklab_worker_attempts_running", Help: "Attempts running on this worker."},
		func() float64 {
			w.mu.Lock()
			defer w.mu.Unlock()
			return float64(len(w.attempts))
		})
	m.ended = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "racklab_worker_attempts_ended_total", Help: "Attempts ended on this worker, by result."}, []string{"result"})
	m.read = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "racklab_worker_bytes_read_total", Help: "Bytes attempts read, by traffic class and level (local, rack, cross)."}, []string{"class", "level"})
	m.reg.MustRegister(m.running, m.ended, m.read)
	for c := dataplane.Class(0); c < dataplane.NumClasses; c++ {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "racklab_worker_bytes_served_total", Help: "Bytes the data server sent, by class.",
			ConstLabels: prometheus.Labels{"class": c.String()}}, func() float64 { return float64(w.server.Stats().Served[c]) }))
	}
	for _, k := range w.st.Tiers() {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "racklab_worker_tier_used_bytes", Help: "Bytes stored on a tier.",
			ConstLabels: prometheus.Labels{"tier": k.String()}}, func() float64 { return float64(w.st.Used(k)) }))
	}
	return m
}

func (m *workerMetrics) attemptEnded(rep *wire.AttemptEnded) {
	result := "succeeded"
	if !rep.OK {
		result = "failed"
	}
	m.ended.WithLabelValues(result).Inc()
	for class, row := range rep.Bytes {
		for l, n := range row {
			if n > 0 {
				m.read.WithLabelValues(class, levelNames[l]).Add(float64(n))
			}
		}
	}
}
