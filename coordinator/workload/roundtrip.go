package workload

import (
	"bytes"

	"github.com/racklab/racklab/coordinator/cluster"
)

// RoundTrip writes a workload and its datasets to their file formats and
// parses them back, as a run that loads them from files would see them.
// Importers use it to check that what they build survives its files.
func RoundTrip(w *Workload, ds *Datasets, t *cluster.Topology) (*Workload, *Datasets, error) {
	var wb, db bytes.Buffer
	if err := WriteWorkload(&wb, w); err != nil {
		return nil, nil, err
	}
	if err := WriteDatasets(&db, ds, t); err != nil {
		return nil, nil, err
	}
	ds2, err := ParseDatasets("datasets.yaml", db.Bytes(), t)
	if err != nil {
		return nil, nil, err
	}
	w2, err := ParseWorkloadFor("workload.yaml", wb.Bytes(), ds2)
	if err != nil {
		return nil, nil, err
	}
	return w2, ds2, nil
}
