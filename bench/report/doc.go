// Package report turns racklab result sets into a comparison report: a
// self-contained HTML page and a Markdown summary, with figures drawn by
// gonum/plot and saved beside them as SVG and PNG.
//
// A result set is a directory holding summary.csv (one row per run, the
// header of bench/metrics.SummaryHeader) and one directory per run,
// <policy>-seed<seed>, with that run's jobs.csv and links.csv. A campaign
// directory holds one result set per mode in sim/, local/ and remote/,
// and may hold campaign.yaml and meta.json, which the report shows.
//
// Runs of one policy with different seeds are repetitions: every metric is
// reported as the mean over them with a 95% confidence interval (Student
// t, n-1 degrees of freedom) when there are at least MinCIRepetitions of
// them, or with the values themselves when there are fewer, and with its
// relative change against a baseline policy's mean. A figure with nothing
// to draw is replaced by a line saying so. Generate does all of it.
//
// Reproduction is the other page: `bench reproduce all`'s, every paper's
// headline table, key figure and fidelity, its cells computed by
// bench/reproduce.
package report
