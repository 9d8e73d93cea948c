// Command datagen turns public traces into racklab workload and dataset
// files, for the coordinator, the simulator and bench campaigns.
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
//	datagen describe coflow.workload.yaml --datasets coflow.datasets.yaml --topology T.yaml
//
// prints a workload's job count, size distribution, PushBox and Trident
// size bins, DAG depth and width, and bytes by category (see package
// datagen/describe).
package main
