// Command datagen turns public traces into racklab workload and dataset
// files, for the coordinator, the simulator and bench campaigns.
//
//	datagen swim --trace FB-2009_samples_24_times_1hr_0.tsv \
//	    --out-workload fb2009.workload.yaml --out-datasets fb2009.datasets.yaml
//
// imports a SWIM trace (see package datagen/swim for the mapping) and prints
// a one-line summary to standard error.
package main
