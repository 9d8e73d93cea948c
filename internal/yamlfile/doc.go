// Package yamlfile is the small toolkit behind racklab's YAML file formats
// (topologies, workloads, datasets, campaigns, predictions), on neutral
// ground that coordinator, worker, datagen and bench may all import. It reads a document into a yaml.Node
// tree and walks it with accessors that check types, reject unknown
// fields and report every problem as an *Error naming the file, the line
// and the field, as in
//
//	topo.yaml:12: rack "r1" host "r1h0": slots must be positive
//
// It also has an Emitter that writes YAML text quickly, quoting strings only
// where a plain scalar would not read back as the same string, and helpers
// that write and read decimal numbers in scaled units (Gbit/s, MB/s) without
// losing a bit of the float64 they stand for.
//
// The walk never panics: type mismatches, alias loops and alias bombs all
// end in an error.
package yamlfile
