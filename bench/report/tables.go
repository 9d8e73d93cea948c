package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Unit is how a metric is measured, which decides its formatting.
type Unit int

// The metric units.
const (
	Seconds     Unit = iota // shown in s, 2 decimals
	JobsPerHour             // shown in jobs/h, 2 decimals
	Bytes                   // shown in a decimal multiple (kB..PB) chosen per metric, 3 decimals
	Fraction                // 0..1, 4 decimals
	Ratio                   // dimensionless, 3 decimals
)

// Metric is a summary.csv column that the report compares.
type Metric struct {
	Key   string // summary.csv column
	Label string
	Unit  Unit
}

// Family is a group of metrics shown in one table.
type Family struct {
	ID, Title string
	Metrics   []Metric
}

// Families are the report's tables, in order.
var Families = []Family{
	{"jct", "Job and workload completion time", []Metric{
		{"jct_mean_s", "JCT mean", Seconds},
		{"jct_p50_s", "JCT p50", Seconds},
		{"jct_p95_s", "JCT p95", Seconds},
		{"jct_p99_s", "JCT p99", Seconds},
		{"wct_mean_s", "Workload completion time, mean", Seconds},
	}},
	{"makespan", "Makespan and throughput", []Metric{
		{"makespan_s", "Makespan", Seconds},
		{"throughput_jobs_per_h", "Throughput", JobsPerHour},
	}},
	{"cross", "Cross-rack traffic", []Metric{
		{"cross_rack_bytes", "Cross-rack bytes, total", Bytes},
		{"cross_input_bytes", "Cross-rack input bytes", Bytes},
		{"cross_shuffle_bytes", "Cross-rack shuffle bytes", Bytes},
		{"cross_dependent_bytes", "Cross-rack dependent-input bytes", Bytes},
		{"cross_duplicate_bytes", "Cross-rack duplicate bytes", Bytes},
		{"cross_output_bytes", "Cross-rack output bytes", Bytes},
		{"measured_cross_rack_bytes", "Measured cross-rack bytes", Bytes},
	}},
	{"locality", "Map-task locality", []Metric{
		{"node_local_frac", "Node-local fraction", Fraction},
		{"rack_local_frac", "Rack-local fraction", Fraction},
		{"remote_frac", "Remote fraction", Fraction},
	}},
	{"tier", "Storage tier of map input", []Metric{
		{"tier_mem_frac", "Memory-tier fraction", Fraction},
		{"tier_ssd_frac", "SSD-tier fraction", Fraction},
		{"tier_hdd_frac", "HDD-tier fraction", Fraction},
	}},
	{"skew", "Rack-link load skew", []Metric{
		{"link_skew", "Link skew (max/min bytes)", Ratio},
		// Shadow's Skew (its Eq. 1): each rack's uplink and downlink apart,
		// idle links left out
		{"rack_link_skew", "Rack-link skew, up and down apart, idle links out (max/min bytes)", Ratio},
		{"shuffle_skew_mean", "Per-job shuffle skew, mean over jobs shuffling across racks", Ratio},
	}},
}

// Table compares the policies of a result set on one family of metrics.
type Table struct {
	Family   Family
	Baseline string
	Rows     []Row
}

// Row is one metric for one policy.
type Row struct {
	Metric Metric
	// UnitLabel is the unit the texts are in ("s", "GB", ...), and Scale
	// the raw value of one of it.
	UnitLabel string
	Scale     float64
	Policy    string
	Baseline  bool
	// First is true on the first row of a metric.
	First bool
	// Stat is in the raw unit of summary.csv.
	Stat  Stat
	Rel   float64
	RelOK bool
	// MeanText is "mean ± half-width", "value (n=1, no CI)" or, with
	// fewer than MinCIRepetitions, "mean (values a, b; no CI)";
	// CIText is "[lo, hi]" or "–"; RelText is "+1.2%", "baseline" or "n/a".
	MeanText, CIText, RelText string
}

// MetricLabel is the metric's label with its unit.
func (r *Row) MetricLabel() string {
	if r.UnitLabel == "" {
		return r.Metric.Label
	}
	return r.Metric.Label + " (" + r.UnitLabel + ")"
}

func decimals(u Unit) int {
	switch u {
	case Bytes, Ratio:
		return 3
	case Fraction:
		return 4
	}
	return 2
}

// FormatNumber formats x with d decimals; infinities as "inf" and "-inf",
// NaN as "n/a".
func FormatNumber(x float64, d int) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(x, 'f', d, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-") // no "-0.00"
	}
	return s
}

// FormatRel formats a relative change as a signed percentage: one decimal
// from 1% on, two below.
func FormatRel(rel float64) string {
	switch {
	case math.IsNaN(rel) || math.IsInf(rel, 0):
		return "n/a"
	case rel == 0:
		return "0.0%"
	case math.Abs(rel) >= 0.01:
		return fmt.Sprintf("%+.1f%%", rel*100)
	}
	return fmt.Sprintf("%+.2f%%", rel*100)
}

// FormatStat formats a statistic, in units of scale, as the report does:
// "mean ± half-width"; "value (n=1, no CI)" for a single repetition; and
// "mean (values a, b; no CI)" for fewer than MinCIRepetitions, whose
// t-interval would mean nothing.
func FormatStat(s Stat, scale float64, d int) string {
	m := FormatNumber(s.Mean/scale, d)
	switch {
	case s.N == 1:
		return m + " (n=1, no CI)"
	case s.N > 1 && s.N < MinCIRepetitions && len(s.Values) == s.N:
		vals := make([]string, len(s.Values))
		for i, v := range s.Values {
			vals[i] = FormatNumber(v/scale, d)
		}
		return m + " (values " + strings.Join(vals, ", ") + "; no CI)"
	case !s.ShowCI():
		return m + " (no CI)"
	}
	return m + " ± " + FormatNumber(s.HalfWidth/scale, d)
}

// FormatCI formats the interval of a statistic, in units of scale; "–"
// where the report shows none.
func FormatCI(s Stat, scale float64, d int) string {
	if !s.ShowCI() {
		return "–"
	}
	return "[" + FormatNumber(s.Lo()/scale, d) + ", " + FormatNumber(s.Hi()/scale, d) + "]"
}

// byteUnit picks the decimal multiple of bytes that shows x best.
func byteUnit(x float64) (string, float64) {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for i < len(units)-1 && math.Abs(x) >= 1000*math.Pow(1000, float64(i)) {
		i++
	}
	return units[i], math.Pow(1000, float64(i))
}

func unitOf(m Metric, means []float64) (string, float64) {
	switch m.Unit {
	case Seconds:
		return "s", 1
	case JobsPerHour:
		return "jobs/h", 1
	case Bytes:
		hi := 0.0
		for _, x := range means {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				hi = math.Max(hi, math.Abs(x))
			}
		}
		return byteUnit(hi)
	}
	return "", 1
}

// Values lists a metric's values over a policy's repetitions.
func (s *ResultSet) Values(policy, key string) []float64 {
	var xs []float64
	for _, r := range s.RunsOf(policy) {
		xs = append(xs, r.Values[key])
	}
	return xs
}

// Tables compares the policies of a result set against a baseline policy.
func Tables(set *ResultSet, baseline string) []Table {
	var out []Table
	for _, fam := range Families {
		t := Table{Family: fam, Baseline: baseline}
		for _, m := range fam.Metrics {
			stats := make([]Stat, len(set.Policies))
			means := make([]float64, len(set.Policies))
			var base Stat
			for i, p := range set.Policies {
				stats[i] = Summarise(set.Values(p, m.Key))
				means[i] = stats[i].Mean
				if p == baseline {
					base = stats[i]
				}
			}
			unit, scale := unitOf(m, means)
			d := decimals(m.Unit)
			if unit == "B" {
				d = 0
			}
			for i, p := range set.Policies {
				r := Row{Metric: m, UnitLabel: unit, Scale: scale, Policy: p, Baseline: p == baseline, First: i == 0, Stat: stats[i]}
				r.Rel, r.RelOK = RelChange(stats[i].Mean, base.Mean)
				r.MeanText = FormatStat(stats[i], scale, d)
				r.CIText = FormatCI(stats[i], scale, d)
				switch {
				case r.Baseline:
					r.RelText = "baseline"
				case r.RelOK:
					r.RelText = FormatRel(r.Rel)
				default:
					r.RelText = "n/a"
				}
				t.Rows = append(t.Rows, r)
			}
		}
		out = append(out, t)
	}
	return out
}
