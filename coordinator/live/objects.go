package live

import (
	"fmt"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
)

// objectKey is the name in a worker's store of an object the engine
// refers to.
func objectKey(o engine.ObjectRef) string {
	if o.Dataset != "" {
		return DatasetBlockKey(o.Dataset, o.Block)
	}
	return OutputKey(o.Attempt)
}

// DatasetBlockKey is the store key of a dataset's block.
func DatasetBlockKey(dataset string, block int) string {
	return fmt.Sprintf("%s/%s/%06d", wire.DatasetObjects, dataset, block)
}

// OutputKey is the store key of an attempt's output.
func OutputKey(a engine.AttemptID) string {
	return fmt.Sprintf("%s/a%d", wire.OutputObjects, a)
}
