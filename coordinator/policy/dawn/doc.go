// Package dawn is the Dawn scheduler (Wang et al., TPDS 2019) as the
// racklab spec describes it: a dependency detector over the workload's job
// DAG (§2.2); an online plan that gives each job's current stage its
// preferred racks and their estimated cross-rack bytes (max_map over the
// job's whole map phase, every map stage's input, set once; max_reduce
// and the dependency-aware dep_reduce for a reduce stage, §2.3); an
// adaptive task scheduler that, for a free container on
// rack i, runs the eligible job causing the least cross-rack traffic when
// the network is saturated and the most when it is not (Algorithm 1,
// §2.5, with the selection variants A, B and C of the ambiguity register);
// online plan balancing (Algorithm 3, §2.6) and an optional starvation
// guard (§2.8). With dependency_unaware set it is instead the case study's
// dependency-unaware scheduler (§4.3).
package dawn
