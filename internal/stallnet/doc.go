// Package stallnet gives tests a TCP peer that stalls: it accepts
// connections and never reads from them, so that a sender of more than
// the sockets buffer blocks, as behind a dead or overloaded host. Tests of
// the data plane and of task attempts use it to check that a stalled
// replica neither holds back the others nor leaves partial objects.
package stallnet
