// Package check is `bench check`: it brings up an emulated cluster and
// measures, with the kernel's own counters, what the testbed promises a
// researcher before any result is trusted: the shaped rack rate, the
// shaped host NIC rate, each storage tier's read rate, and that flows of
// different priorities through one bottleneck share it in priority order
// (the higher takes at least 90% while both send, the lower keeps its
// guarantee). Each check is one line; Run reports them all.
package check
