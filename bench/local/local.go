package local

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/live"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/shaping"
	"github.com/racklab/racklab/worker/dataplane"
	"golang.org/x/sys/unix"
)

// Options configure an emulated cluster.
type Options struct {
	// Prefix names the namespaces and links (1-6 of [a-z0-9]).
	Prefix   string
	Mode     shaping.Mode
	Topology *cluster.Topology
	// WorkerCommand is the argv that runs a worker (flags are appended),
	// e.g. {"/path/bench", "worker"}.
	WorkerCommand []string
	// Dir holds the workers' tiers, logs and the credentials; it is
	// removed by Stop. Empty: ClusterDir(Prefix), which Cleanup also
	// removes after a crash.
	Dir string
	// NATSPort is the embedded NATS server's port on the management
	// bridge.
	NATSPort int
	Cluster  string
	// LogDir receives a log file per worker (default: Dir, which goes
	// away with the cluster).
	LogDir string
	// Background is the share of every shaped rack link that real,
	// paced background flows occupy while the cluster is up (0: none).
	Background float64
	// Priorities gives every shaped bottleneck one HTB leaf per band of
	// the priority table, chosen by DSCP: the rack links in switched mode,
	// the workers' own shapers in flat mode, and the host NICs.
	Priorities bool
	// ShapeHostNICs shapes every host's NIC at the topology's rate.
	ShapeHostNICs bool
	// ShareRackLinks, in flat mode, has the workers share each rack's
	// links by demand (worker --shape-share) rather than split its
	// uplink equally among its hosts.
	ShareRackLinks bool
	// SleepCompute has the workers wait their attempts' compute time out
	// instead of burning CPU (worker --sleep-compute): the emulated hosts
	// share this machine's cores, and a cluster of many slots would
	// otherwise starve the data plane and the heartbeats of them.
	SleepCompute bool
	// Congestion is the TCP congestion control of the workers' data
	// plane and of the background flows (worker --tcp-congestion; "":
	// dataplane.DefaultCongestion).
	Congestion string
	Logf       func(format string, args ...any)
}

// congestion is the congestion control the cluster's sockets use.
func (o Options) congestion() string {
	if o.Congestion == "" {
		return dataplane.DefaultCongestion
	}
	return o.Congestion
}

// NetworkSpec is the network Start builds for opt.
func NetworkSpec(opt Options) shaping.ClusterSpec {
	spec := shaping.ClusterSpec{Prefix: opt.Prefix, Mode: opt.Mode, Priorities: opt.Priorities}
	for _, r := range opt.Topology.Racks {
		rs := shaping.RackSpec{Hosts: len(r.Hosts)}
		if opt.Mode == shaping.Switched {
			rs.UplinkBps, rs.DownlinkBps = r.UplinkBps, r.DownlinkBps
		}
		if opt.ShapeHostNICs {
			// each host its own NIC: a rack's need not be alike
			for _, h := range r.Hosts {
				rs.HostNICsBps = append(rs.HostNICsBps, opt.Topology.Hosts[h].NICBps)
			}
		}
		spec.Racks = append(spec.Racks, rs)
	}
	return spec
}

// Emulator is a running emulated cluster with its workers.
type Emulator struct {
	opt     Options
	Net     *shaping.Cluster
	Creds   wire.Credentials
	workers []*exec.Cmd
	exited  []chan struct{}
	mounted bool
	bg      *background
	lock    *shaping.PrefixLock
}

// tierRoot is the mount point of the tiers' tmpfs.
func (e *Emulator) tierRoot() string { return e.opt.Dir }

// Start brings up the network and a worker per host.
func Start(opt Options) (e *Emulator, err error) {
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	if opt.NATSPort == 0 {
		opt.NATSPort = 4222
	}
	if len(opt.WorkerCommand) == 0 {
		return nil, errors.New("local: no worker command")
	}
	if opt.Dir == "" {
		opt.Dir = ClusterDir(opt.Prefix)
	}
	// a cluster the network cannot be (a bad prefix, more hosts than its
	// addresses, rates HTB cannot hold) is refused before anything is
	// made: shaping.Up would refuse it only after the tmpfs was mounted
	// and the workers' credentials written
	spec := NetworkSpec(opt)
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	// held until Stop has removed everything: no other cluster of this
	// prefix can start, or clean this one up, meanwhile
	lock, err := shaping.LockPrefix(opt.Prefix)
	if err != nil {
		return nil, fmt.Errorf("local: %w", err)
	}
	if err := removeLeftovers(opt.Prefix, opt.Logf); err != nil {
		lock.Release()
		return nil, err
	}
	e = &Emulator{opt: opt, lock: lock}
	// from here every failure takes down what was made and releases the
	// lock: made is the emulator, as e is nil once a failure returns
	// (the cleanup ran on that nil and panicked, leaving the namespaces,
	// the tmpfs and the lock behind; a failure to issue credentials left
	// the lock held)
	made := e
	defer func() {
		if err != nil {
			err = errors.Join(err, made.Stop())
		}
	}()
	var hosts []string
	for _, h := range opt.Topology.Hosts {
		hosts = append(hosts, h.Name)
	}
	if e.Creds, err = wire.NewCredentials(hosts); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	// every tier of every host lives on one private tmpfs; the slower
	// tiers' rates are emulated by the workers' token buckets
	if err := unix.Mount("racklab-"+opt.Prefix, e.tierRoot(), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return nil, fmt.Errorf("local: mount a tmpfs for the tiers at %s: %w", e.tierRoot(), err)
	}
	e.mounted = true
	// each worker is told only its own file (they all run as root here,
	// so the directory's mode keeps out nobody but other users)
	credsDir := filepath.Join(opt.Dir, "credentials")
	if err := wire.WriteCredentials(credsDir, e.Creds); err != nil {
		return nil, err
	}
	opt.Logf("local: bringing up %d racks × %d hosts (%s mode, prefix %s)", len(spec.Racks), len(opt.Topology.Hosts)/max(len(spec.Racks), 1), opt.Mode, opt.Prefix)
	if e.Net, err = shaping.Up(spec); err != nil {
		return nil, err
	}
	if len(e.Net.Hosts) != len(opt.Topology.Hosts) {
		return nil, fmt.Errorf("local: the network has %d hosts, the topology %d", len(e.Net.Hosts), len(opt.Topology.Hosts))
	}
	for i, hn := range e.Net.Hosts {
		if err := e.startWorker(i, hn, wire.WorkerFile(credsDir, opt.Topology.Hosts[i].Name)); err != nil {
			return nil, err
		}
	}
	if opt.Background > 0 {
		if e.bg, err = startBackground(e, opt.Background); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// NATSListen is where the coordinator's embedded server must listen.
func (e *Emulator) NATSListen() string {
	return net.JoinHostPort(e.Net.MgmtIP.String(), strconv.Itoa(e.opt.NATSPort))
}

func (e *Emulator) startWorker(i int, hn shaping.HostNet, credsPath string) error {
	host := e.opt.Topology.Hosts[i]
	rack := e.opt.Topology.Racks[host.Rack]
	args := append([]string(nil), e.opt.WorkerCommand[1:]...)
	// the worker runs as many tasks at once as the host has slots, of
	// both pools when its topology splits them
	args = append(args,
		"--host", host.Name, "--rack", rack.Name, "--slots", strconv.Itoa(host.AllSlots()),
		"--nats", "nats://"+e.NATSListen(), "--credentials", credsPath, "--cluster", e.opt.Cluster,
		"--data-addr", net.JoinHostPort(hn.DataIP.String(), "7000"), "--member-addr", hn.MgmtIP.String(),
		"--data-dev", hn.DataDev, "--metrics-addr", net.JoinHostPort(hn.MgmtIP.String(), "9465"))
	for _, t := range host.Tiers {
		dir := filepath.Join(e.tierRoot(), host.Name, t.Kind.String())
		args = append(args, "--tier", fmt.Sprintf("%s:%s:%.0f:%.0f:%d", t.Kind, dir, t.ReadBps, t.WriteBps, t.CapacityBytes))
	}
	if e.opt.SleepCompute {
		args = append(args, "--sleep-compute")
	}
	args = append(args, "--tcp-congestion", e.opt.congestion())
	if e.opt.Mode == shaping.Flat && rack.UplinkBps > 0 {
		// a static equal split of the rack's uplink among its hosts
		args = append(args, "--shape", strconv.FormatInt(int64(rack.UplinkBps/float64(len(rack.Hosts))), 10))
		if e.opt.ShareRackLinks {
			// the equal split holds until the first share, 100 ms in
			args = append(args, "--shape-share", fmt.Sprintf("%.0f:%.0f:%.0f", rack.UplinkBps, rack.DownlinkBps, host.NICBps))
		}
		if e.opt.Priorities {
			args = append(args, "--shape-priorities")
		}
	}
	logDir := e.opt.LogDir
	if logDir == "" {
		logDir = e.opt.Dir
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(logDir, "worker-"+host.Name+".log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(e.opt.WorkerCommand[0], args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// the worker dies with us even if we are killed
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := shaping.StartIn(hn.Netns, cmd); err != nil {
		return fmt.Errorf("local: start worker %s: %w", host.Name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	e.workers = append(e.workers, cmd)
	e.exited = append(e.exited, done)
	return nil
}

// Kill sends a signal to one host's worker.
func (e *Emulator) Kill(host string, sig syscall.Signal) error {
	for i, h := range e.opt.Topology.Hosts {
		if h.Name == host && i < len(e.workers) {
			return e.workers[i].Process.Signal(sig)
		}
	}
	return fmt.Errorf("local: no worker for host %q", host)
}

// Counters reads the kernel's rack-link counters as payload bytes per
// rack, up then down. Background traffic's payload, as its receivers
// counted it, is taken out, so that the counters compare with the
// workload's expected bytes.
func (e *Emulator) Counters() (up, down []float64, err error) {
	cs, err := e.Net.RackLinkCounters()
	if err != nil {
		return nil, nil, err
	}
	up, down = make([]float64, len(cs)), make([]float64, len(cs))
	for _, c := range cs {
		up[c.Rack] = wire.Counter{Bytes: c.UpBytes, Packets: c.UpPackets}.Payload()
		down[c.Rack] = wire.Counter{Bytes: c.DownBytes, Packets: c.DownPackets}.Payload()
		if e.bg != nil {
			up[c.Rack] -= float64(e.bg.up[c.Rack].Load())
			down[c.Rack] -= float64(e.bg.down[c.Rack].Load())
		}
	}
	return up, down, nil
}

// Stop ends the workers (SIGTERM, then SIGKILL after a grace period) and
// removes the network and the directory.
func (e *Emulator) Stop() error {
	var errs []error
	if e.bg != nil {
		errs = append(errs, e.bg.stop())
		e.bg = nil
	}
	for _, w := range e.workers {
		_ = w.Process.Signal(syscall.SIGTERM)
	}
	// one grace period for all: then whoever is left is killed
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	for i, done := range e.exited {
		select {
		case <-done:
			continue
		case <-deadline.C:
		}
		for j := i; j < len(e.workers); j++ {
			_ = e.workers[j].Process.Kill()
		}
		for _, d := range e.exited[i:] {
			<-d
		}
		break
	}
	if e.mounted {
		if err := unix.Unmount(e.tierRoot(), unix.MNT_DETACH); err != nil {
			errs = append(errs, fmt.Errorf("local: unmount %s: %w", e.tierRoot(), err))
		}
		e.mounted = false
	}
	if e.Net != nil {
		errs = append(errs, e.Net.Down())
	} else {
		errs = append(errs, shaping.Cleanup(e.opt.Prefix))
	}
	errs = append(errs, os.RemoveAll(e.opt.Dir))
	e.lock.Release()
	return errors.Join(errs...)
}

// Run brings up the cluster, runs one live run on it, and takes it down,
// also when the run fails or ctx is cancelled. cfg's NATS, credentials,
// memberlist and counters are filled in here.
func Run(ctx context.Context, opt Options, cfg live.Config) (res *live.Result, err error) {
	if opt.LogDir == "" {
		opt.LogDir = cfg.OutDir
	}
	e, err := Start(opt)
	if err != nil {
		return nil, err
	}
	defer func() {
		if ctx.Err() != nil {
			e.opt.Logf("local: stopped: taking cluster %s down", e.opt.Prefix)
		}
		err = errors.Join(err, e.Stop())
	}()
	cfg.Topology = opt.Topology
	cfg.Cluster = opt.Cluster
	cfg.NATSURL = ""
	cfg.Listen = e.NATSListen()
	cfg.Creds = e.Creds
	cfg.MemberAddr = e.Net.MgmtIP.String()
	cfg.Counters = e.Counters
	cfg.StopWorkers = true
	if bs := e.bottlenecks(); len(bs) > 0 && cfg.OutDir != "" {
		g, err := e.Net.NewGroupReader()
		if err != nil {
			return nil, err
		}
		defer g.Close()
		ps, err := samplePriorityOrder(ctx, filepath.Join(cfg.OutDir, PrioritySamplesFile), g, bs, prioritySampleEvery)
		if err != nil {
			return nil, err
		}
		defer func() { _, _, _ = ps.Stop() }()
		cfg.PriorityOrder = ps.Stop
	}
	if cfg.MetricsAddr == "" {
		cfg.MetricsAddr = net.JoinHostPort(e.Net.MgmtIP.String(), "9464")
	}
	return live.Run(ctx, cfg)
}

// CoordinatorCredentials is the full credentials (the coordinator's and
// every host's), for a coordinator started by hand against a cluster
// from 'bench local up'.
func (e *Emulator) CoordinatorCredentials() wire.Credentials { return e.Creds }

// ClusterDir is the directory of a cluster's tiers (a tmpfs mounted
// there), logs and credentials. It is named by the prefix, not made
// afresh, so that a cleanup after a crash finds it also when the crash
// came before its tmpfs was mounted; the prefix's lock keeps it to one
// cluster at a time.
func ClusterDir(prefix string) string {
	return filepath.Join(os.TempDir(), "racklab-"+prefix+"-cluster")
}

// UpFiles are the files 'bench local up' writes for a coordinator started
// by hand: the coordinator's credentials (a directory) and, for a uniform
// cluster, its topology.
func UpFiles(prefix string) (credentials, topology string) {
	return filepath.Join(os.TempDir(), "racklab-"+prefix+"-credentials"), filepath.Join(os.TempDir(), "racklab-"+prefix+"-topology.yaml")
}

// Cleanup removes what an emulated cluster with this prefix left after a
// crash: its network, the tmpfs mounts of its tiers and the files of
// UpFiles. It refuses while another process holds the prefix (a cluster
// that is running).
func Cleanup(prefix string) error {
	lock, err := shaping.LockPrefix(prefix) // a running cluster's is not ours to remove
	if err != nil {
		return fmt.Errorf("local: %w", err)
	}
	defer lock.Release()
	errs := []error{shaping.Cleanup(prefix)}
	mounts, err := tierMounts(prefix)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, dir := range mounts {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			errs = append(errs, fmt.Errorf("local: unmount %s: %w", dir, err))
			continue
		}
		errs = append(errs, os.Remove(dir))
	}
	creds, topo := UpFiles(prefix)
	errs = append(errs, os.RemoveAll(creds), os.RemoveAll(topo))
	if err := errors.Join(errs...); err != nil {
		return err // a mount may be left in the cluster's directory: keep it
	}
	return os.RemoveAll(ClusterDir(prefix))
}

// tierMounts lists where the tmpfs mounts of a cluster's tiers (named
// racklab-<prefix>, as Start and bench check mount them) are.
func tierMounts(prefix string) ([]string, error) {
	mounts, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, line := range strings.Split(string(mounts), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "racklab-"+prefix && f[2] == "tmpfs" {
			dirs = append(dirs, f[1])
		}
	}
	return dirs, nil
}

// removeLeftovers removes what an earlier cluster of this prefix left
// (after a crash, or a SIGKILL, which no process can clean up after), and
// says what it removed.
func removeLeftovers(prefix string, logf func(string, ...any)) error {
	left, err := Leftovers(prefix)
	if err != nil {
		return fmt.Errorf("local: leftovers of an earlier cluster %s: %w", prefix, err)
	}
	if len(left) > 0 {
		logf("local: removing what an earlier cluster %s left: %s", prefix, countKinds(left))
	}
	if err := Cleanup(prefix); err != nil {
		return fmt.Errorf("local: leftovers of an earlier cluster %s: %w", prefix, err)
	}
	return nil
}

// countKinds counts Leftovers' entries by kind: "10 link, 10 netns, 1 mount".
func countKinds(left []string) string {
	var kinds []string
	n := map[string]int{}
	for _, l := range left {
		k, _, _ := strings.Cut(l, ":")
		if n[k] == 0 {
			kinds = append(kinds, k)
		}
		n[k]++
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", n[k], k)
	}
	return strings.Join(parts, ", ")
}

// Leftovers lists what of a cluster with this prefix is present:
// namespaces, links, tier mounts, its ClusterDir and the files of UpFiles.
func Leftovers(prefix string) ([]string, error) {
	left, err := shaping.Leftovers(prefix)
	if err != nil {
		return nil, err
	}
	mounts, err := tierMounts(prefix)
	if err != nil {
		return nil, err
	}
	for _, dir := range mounts {
		left = append(left, "mount:"+dir)
	}
	creds, topo := UpFiles(prefix)
	for _, f := range []string{ClusterDir(prefix), creds, topo} {
		if fi, err := os.Lstat(f); err == nil {
			kind := "file:"
			if fi.IsDir() {
				kind = "dir:"
			}
			left = append(left, kind+f)
		}
	}
	return left, nil
}
