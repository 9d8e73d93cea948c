// Package policytest has helpers for testing policies against hand-built
// scenarios: small topologies, placed datasets, and a driver that finishes
// attempts on command.
package policytest
