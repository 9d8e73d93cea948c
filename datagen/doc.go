// Command datagen turns public traces into racklab workload and dataset
// files, and generates the workloads of the papers racklab reproduces, for
// the coordinator, the simulator and bench campaigns.
//
//	datagen swim --trace FB-2009_samples_24_times_1hr_0.tsv \
//	    --out-workload fb2009.workload.yaml --out-datasets fb2009.datasets.yaml
//
// imports a SWIM trace (see package datagen/swim for the mapping) and prints
// a one-line summary to standard error.
//
//	datagen coflow --trace FB2010-1Hr-150-0.txt --racks 150 --hosts-per-rack 2 \
//	    --out-workload coflow.workload.yaml --out-datasets coflow.datasets.yaml
//
// imports a coflow-benchmark trace onto a uniform topology (or --topology
// FILE), with placed input datasets (see package datagen/coflow), and prints
// a one-line summary to standard error.
//
// The generators write the same two files, print the same kind of summary
// and share --seed, --scale (every byte count, block sizes included),
// --arrivals trace|poisson|once with --rate (submissions per second),
// --block-size and --replication (see package datagen/gen):
//
//	datagen tpch --scale-factor 50 [--multistage] --out-workload W --out-datasets D
//
// the 22 TPC-H queries as Hive job DAGs or Tez-like jobs (datagen/tpch);
//
//	datagen ml --workloads 581 --out-workload W --out-datasets D
//
// Dawn's iterative ML workloads B1–B15 (datagen/ml);
//
//	datagen recurring --workload w1 --size-error 0.5 --arrival-error 0.3 \
//	    --out-workload W --out-datasets D --out-predicted P
//
// Corral-like recurring jobs W1–W3 with their predicted sizes and arrivals
// in a side file (datagen/recurring);
//
//	datagen mix --preset pushbox-w2 --out-workload W --out-datasets D
//
// PUMA and HiBench benchmark mixes (datagen/mix);
//
//	datagen fbtiers --jobs 1000 --duration 6h --total-input 92GiB --zipf 1 \
//	    --out-workload W --out-datasets D
//
// Trident's Facebook-derived workload: Table 2's input-size bins over a pool
// of shared input files with Zipf popularity, shuffle and output from the
// FB-2010 SWIM trace (datagen/fbtiers).
//
//	datagen layout --topology T --datasets D --tier-mix mem=0.1,ssd=0.3,hdd=0.6 --out PLACED
//
// places unplaced datasets, HDFS rack-aware with a tier mix (datagen/layout).
//
//	datagen describe coflow.workload.yaml --datasets coflow.datasets.yaml --topology T.yaml
//
// prints a workload's job count, size distribution, PushBox and Trident
// size bins, DAG depth and width, job DAG count, recurring sets and queues,
// and bytes by category (see package datagen/describe).
package main
