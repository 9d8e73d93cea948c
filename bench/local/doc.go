// Package local runs racklab on one machine: an emulated cluster of
// network namespaces (switched, with tc-shaped rack links, or flat, with
// each worker shaping its own traffic), a worker process per host started
// inside its namespace, and the live coordinator in this process, on the
// unshaped management network. It removes every namespace, link, qdisc,
// process and file it made when a run ends, fails or is interrupted.
package local
