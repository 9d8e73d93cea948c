package live

import (
	"fmt"
	"strconv"
	"time"

	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
)

// objectKey is the name in a worker's store of an object the engine
// refers to.
func (r *run) objectKey(o engine.ObjectRef) string {
	if o.Dataset != "" {
		return DatasetBlockKey(o.Dataset, o.Block)
	}
	return r.outputKey(o.Attempt)
}

// DatasetBlockKey is the store key of a dataset's block.
func DatasetBlockKey(dataset string, block int) string {
	return fmt.Sprintf("%s/%s/%06d", wire.DatasetObjects, dataset, block)
}

// outputKey is the store key of an attempt's output in this run.
func (r *run) outputKey(a engine.AttemptID) string { return OutputKey(r.tag, a) }

// OutputKey is the store key of an attempt's output in the run tagged
// run. Attempt IDs start again at 0 in every run, and workers that stay
// up between runs (reset, not stopped) keep their data servers, which
// remember the keys a failed attempt deleted (worker/dataplane's DELETE)
// and refuse copies of them for a while; a DELETE of one run may also
// reach a worker after the next run has begun. Under the run's own tag
// no key of one run is a key of another.
func OutputKey(run string, a engine.AttemptID) string {
	return fmt.Sprintf("%s/%s/a%d", wire.OutputObjects, run, a)
}

// runTag names a run in its output keys: the time it was made, in base
// 36 (13 characters).
func runTag(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 36) }
