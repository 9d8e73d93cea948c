package main

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/spf13/pflag"
)

// The cluster flags default to cluster.DefaultUniform, like topology files
// and campaigns; only the size is the command's own.
func TestClusterFlagDefaults(t *testing.T) {
	var f clusterFlags
	fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.add(fl, 4, 5)
	if err := fl.Parse(nil); err != nil {
		t.Fatal(err)
	}
	got, err := f.load()
	if err != nil {
		t.Fatal(err)
	}
	spec := cluster.DefaultUniform()
	spec.Racks, spec.HostsPerRack = 4, 5
	want, _ := cluster.Uniform(spec)
	if !reflect.DeepEqual(got, want) {
		t.Error("default flags do not give Uniform(DefaultUniform()) at the command's size")
	}
	if err := fl.Parse([]string{"--slots", "8", "--reduce-slots", "2", "--nic-gbps", "10", "--oversubscription", "5"}); err != nil {
		t.Fatal(err)
	}
	if got, err = f.load(); err != nil {
		t.Fatal(err)
	}
	if h := got.Hosts[0]; h.Slots != 8 || h.ReduceSlots != 2 || h.NICBps != 1.25e9 || got.Racks[0].UplinkBps != 5*1.25e9/5 {
		t.Errorf("flags not applied: host %+v, uplink %g", h, got.Racks[0].UplinkBps)
	}
	if err := fl.Parse([]string{"--reduce-slots", "-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err = f.load(); err == nil || err.Error() != fmt.Sprintf("--reduce-slots must be between 0 (one pool) and %d (got -1)", cluster.MaxSlots) {
		t.Errorf("negative --reduce-slots: %v", err)
	}

	// Each command: its own size, the shared rest.
	def := cluster.DefaultUniform()
	for _, c := range []struct {
		name       string
		flags      *pflag.FlagSet
		racks, hpr string
	}{
		{"sim", simCmd().Flags(), "20", "30"},
		{"local run", localRunCmd().Flags(), "3", "3"},
	} {
		for flag, want := range map[string]string{
			"racks": c.racks, "hosts-per-rack": c.hpr, "slots": strconv.Itoa(def.Slots), "reduce-slots": "0",
			"nic-gbps":         strconv.FormatFloat(def.NICBps*8/1e9, 'g', -1, 64),
			"oversubscription": strconv.FormatFloat(def.Oversubscription, 'g', -1, 64),
		} {
			if got := c.flags.Lookup(flag).DefValue; got != want {
				t.Errorf("%s --%s defaults to %s, want %s", c.name, flag, got, want)
			}
		}
	}
}

// The topology file `bench local up` writes for the coordinator is the
// cluster the flags build, non-default values and all.
func TestClusterFlagsUniformLine(t *testing.T) {
	var f clusterFlags
	fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.add(fl, 3, 3)
	if err := fl.Parse([]string{"--racks", "2", "--hosts-per-rack", "4", "--slots", "6", "--reduce-slots", "1", "--nic-gbps", "0.1", "--oversubscription", "6.5"}); err != nil {
		t.Fatal(err)
	}
	want, err := f.load()
	if err != nil {
		t.Fatal(err)
	}
	got, err := cluster.ParseTopology("up", []byte(f.uniformLine()))
	if err != nil {
		t.Fatalf("%q: %v", f.uniformLine(), err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q does not describe the flags' cluster:\n got %+v\nwant %+v", f.uniformLine(), got, want)
	}
}
