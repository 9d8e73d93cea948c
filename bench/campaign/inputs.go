package campaign

import (
	"fmt"
	"os"
)

// CheckInputs reports the first input file the campaign names that cannot
// be read: a topology, a workload's file, datasets, predicted sizes or
// trace, a run set's credentials. Execute calls it before it writes
// anything, so that a wrong path leaves no result directory behind (one
// that would then refuse the corrected campaign as a different one).
func (c *Campaign) CheckInputs() error {
	check := func(where, key, path string) error {
		if path == "" {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("%s: %s: %s %s: %w", c.Path, where, key, path, unwrapPath(err))
		}
		return f.Close()
	}
	if err := check("campaign", "topology", c.TopologyFile); err != nil {
		return err
	}
	workload := func(where string, w *WorkloadSpec) error {
		paths := [][2]string{{"file", w.File}, {"datasets", w.Datasets}, {"predicted", w.Predicted}}
		if w.Swim != nil {
			paths = append(paths, [2]string{"swim trace", w.Swim.Trace})
		}
		if w.Coflow != nil {
			paths = append(paths, [2]string{"coflow trace", w.Coflow.Trace}, [2]string{"coflow input_from", w.Coflow.InputFrom})
		}
		if g := w.Generator; g != nil && g.Trace != "" {
			paths = append(paths, [2]string{"generator trace", g.Trace})
		}
		for _, p := range paths {
			if err := check(where, p[0], p[1]); err != nil {
				return err
			}
		}
		return nil
	}
	if c.Named() {
		for i := range c.Workloads {
			if err := workload("workload "+c.Workloads[i].Name, &c.Workloads[i].Spec); err != nil {
				return err
			}
		}
	} else if err := workload("workload", &c.Workload); err != nil {
		return err
	}
	for i, rs := range c.Runs {
		if err := check(fmt.Sprintf("runs[%d]", i), "credentials", rs.Credentials); err != nil {
			return err
		}
	}
	return nil
}

// unwrapPath drops the path from an *os.PathError, which the message
// already names.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
