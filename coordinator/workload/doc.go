// Package workload describes what a run executes: jobs made of stages
// (a DAG per job, and a DAG of jobs through parent links), and the input
// datasets they read, either unplaced (split into blocks and placed at
// upload time by a policy hook) or already laid out as blocks with replicas
// on hosts' storage tiers. Workloads and datasets are read from and
// written to YAML files (see yaml.go) and checked by Validate.
package workload
