package campaign

import (
	"strings"
	"testing"
)

const optionsHead = "name: x\ncluster: {racks: 2, hosts_per_rack: 2}\n"

// parseErrors parses each campaign text and checks its error.
func parseErrors(t *testing.T, cases map[string]string) {
	t.Helper()
	for text, want := range cases {
		_, err := Parse("c.yaml", []byte(text))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s\nrefused: %v", text, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s\nerror %v\nwant %q", text, err, want)
		}
	}
}

// A datasets file is read only with a workload file: given beside a
// generator, a SWIM or a coflow trace (which make their own datasets) it
// was accepted, required to exist, hashed into meta.json, and never used.
func TestDatasetsOnlyWithAWorkloadFile(t *testing.T) {
	const runs = "runs: [{mode: sim, policies: [fifo]}]\n"
	const want = "c.yaml:4: workload: datasets go with a workload file"
	parseErrors(t, map[string]string{
		optionsHead + "workload:\n  datasets: d.yaml\n  generator: {name: tpch}\n" + runs:              want,
		optionsHead + "workload:\n  datasets: d.yaml\n  swim: {trace: t.tsv}\n" + runs:                 want,
		optionsHead + "workload:\n  datasets: d.yaml\n  coflow: {trace: t.txt}\n" + runs:               want,
		optionsHead + "workloads:\n  a:\n    datasets: d.yaml\n    generator: {name: ml}\n" + runs:     "c.yaml:5: workloads a: datasets go with a workload file",
		optionsHead + "workload:\n  file: w.yaml\n  datasets: d.yaml\n" + runs:                         "",
		optionsHead + "workload:\n  file: w.yaml\n  datasets: d.yaml\n  swim: {trace: t.tsv}\n" + runs: "c.yaml:6: workload: give either file or swim, not both",
	})
}

// The keys that reach a lab cluster (nats, credentials, listen,
// member_addr) were accepted in sim and local run sets and ignored there;
// network, which a remote run never reads, was accepted in remote ones.
func TestLabKeysOnlyInRemoteRunSets(t *testing.T) {
	const wl = "workload: {file: w.yaml}\n"
	parseErrors(t, map[string]string{
		optionsHead + wl + "runs:\n  - {mode: sim, policies: [fifo], listen: 0.0.0.0:4222}\n":                           "c.yaml:5: runs[0]: listen is an option of a lab cluster (mode remote)",
		optionsHead + wl + "runs:\n  - {mode: local, policies: [fifo], nats: nats://h:4222}\n":                          "c.yaml:5: runs[0]: nats is an option of a lab cluster (mode remote)",
		optionsHead + wl + "runs:\n  - {mode: sim, policies: [fifo], credentials: creds}\n":                             "c.yaml:5: runs[0]: credentials is an option of a lab cluster",
		optionsHead + wl + "runs:\n  - {mode: local, policies: [fifo], member_addr: 10.0.0.1}\n":                        "c.yaml:5: runs[0]: member_addr is an option of a lab cluster",
		optionsHead + wl + "runs:\n  - {mode: remote, policies: [fifo], listen: h:1, network: flat}\n":                  "c.yaml:5: runs[0]: network is the simulator's rate allocation",
		optionsHead + wl + "runs:\n  - {mode: remote, policies: [fifo], listen: h:1, member_addr: h, credentials: c}\n": "",
	})
}

// set is the recurring generator's and preset the mix generator's: given
// to another generator they were silently ignored.
func TestSetAndPresetOnlyForTheirGenerators(t *testing.T) {
	const runs = "runs: [{mode: sim, policies: [fifo]}]\n"
	parseErrors(t, map[string]string{
		optionsHead + "workload:\n  generator: {name: tpch, preset: pushbox-w1}\n" + runs: "c.yaml:4: workload generator: preset is an option of the mix generator, not of tpch",
		optionsHead + "workload:\n  generator: {name: ml, set: w2}\n" + runs:              "c.yaml:4: workload generator: set is an option of the recurring generator, not of ml",
		optionsHead + "workload:\n  generator: {name: mix, preset: pushbox-w1}\n" + runs:  "",
		optionsHead + "workload:\n  generator: {name: recurring, set: w2}\n" + runs:       "",
	})
}

// A limit below a workload's window fails every run of it, and was found
// only as each run started (after the runs before it, without the
// campaign's line); a window_s beyond a time.Duration turned a live run's
// window negative.
func TestLimitsBelowTheWindowAreRefusedAtLoad(t *testing.T) {
	const sim = "runs: [{mode: sim, policies: [fifo]}]\n"
	const local = "runs: [{mode: local, policies: [fifo]}]\n"
	parseErrors(t, map[string]string{
		optionsHead + "limits: {max_sim_time_s: 100}\nworkload:\n  file: w.yaml\n  window_s: 200\n" + sim:                                                                                             "c.yaml:6: workload: limits: max_sim_time_s 100 is below the workload's window_s 200",
		optionsHead + "limits: {max_run_time: 10m}\nworkload:\n  file: w.yaml\n  window_s: 14400\n" + local:                                                                                           "c.yaml:6: workload: limits: max_run_time 10m0s is shorter than the workload's window_s 14400: every local run",
		optionsHead + "limits: {max_run_time: 10m}\nworkloads:\n  a: {file: w.yaml}\n  b: {file: w.yaml, window_s: 3600}\nruns:\n  - {mode: remote, listen: h:1, policies: [fifo], workloads: [b]}\n": "c.yaml:6: workloads b: limits: max_run_time 10m0s is shorter than workload b's window_s 3600: every remote run",
		// a run time limit bounds live runs only, and only those of the workload
		optionsHead + "limits: {max_run_time: 10m}\nworkload:\n  file: w.yaml\n  window_s: 14400\n" + sim:                                                                                                                  "",
		optionsHead + "limits: {max_run_time: 10m}\nworkloads:\n  a: {file: w.yaml}\n  b: {file: w.yaml, window_s: 3600}\nruns:\n  - {mode: local, policies: [fifo], workloads: [a]}\n  - {mode: sim, policies: [fifo]}\n": "",
		optionsHead + "limits: {max_sim_time_s: 200, max_run_time: 4m}\nworkload:\n  file: w.yaml\n  window_s: 200\n" + local:                                                                                              "",
		optionsHead + "workload:\n  file: w.yaml\n  window_s: 1e10\n" + local:                                                                                                                                              "c.yaml:5: workload: window_s must be at most 1e+09 s",
	})
}

// A policy listed twice in a sweep drew two identical lines under one
// legend entry.
func TestSweepPolicyListedOnce(t *testing.T) {
	parseErrors(t, map[string]string{
		runSetSweepCampaign("  - {name: s, x: e, metric: makespan_s, policies: [fair, fair], baseline: fifo, points: {a: 0, b: 1}}\n"): "c.yaml:13: sweeps[0]: policy fair is listed twice",
		runSetSweepCampaign("  - {name: s, x: e, metric: makespan_s, policies: [fair], baseline: fifo, points: {a: 0, b: 1}}\n"):       "",
	})
}

// Background traffic is the simulator's (a share off every rack link) or
// the emulated cluster's (real flows); a remote run set was accepted with
// it, and its engine was told of load no one sent.
func TestBackgroundRefusedWithRemoteRunSets(t *testing.T) {
	const wl = "workload: {file: w.yaml}\n"
	parseErrors(t, map[string]string{
		optionsHead + wl + "background: 0.2\nruns:\n  - {mode: sim, policies: [fifo]}\n  - {mode: remote, listen: h:1, policies: [fifo]}\n": "c.yaml:4: campaign: background traffic is made in simulation and on the emulated cluster (mode local), not on a lab cluster: runs[1] is remote",
		optionsHead + wl + "background: 0.2\nruns:\n  - {mode: sim, policies: [fifo]}\n  - {mode: local, policies: [fifo]}\n":               "",
		optionsHead + wl + "runs:\n  - {mode: remote, listen: h:1, policies: [fifo]}\n":                                                     "",
	})
}
