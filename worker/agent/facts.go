package agent

import (
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/shirou/gopsutil/v3/cpu"
	"github.com/shirou/gopsutil/v3/host"
	"github.com/shirou/gopsutil/v3/mem"
	"github.com/shirou/gopsutil/v3/net"
)

// Facts reads what a run records about the machine. Missing facts are
// left empty rather than failing a worker.
func Facts() wire.HostFacts {
	var f wire.HostFacts
	if h, err := host.Info(); err == nil {
		f.Hostname, f.OS, f.Kernel = h.Hostname, h.Platform+" "+h.PlatformVersion, h.KernelVersion
	}
	if n, err := cpu.Counts(true); err == nil {
		f.CPUs = n
	}
	if infos, err := cpu.Info(); err == nil && len(infos) > 0 {
		f.CPUModel = infos[0].ModelName
	}
	if m, err := mem.VirtualMemory(); err == nil {
		f.MemBytes = m.Total
	}
	return f
}

// nicCounters returns a NIC's cumulative transmit and receive bytes, from
// /proc/net/dev of the network namespace the worker runs in.
func nicCounters(dev string) (tx, rx uint64) {
	if dev == "" {
		return 0, 0
	}
	stats, err := net.IOCounters(true)
	if err != nil {
		return 0, 0
	}
	for _, s := range stats {
		if s.Name == dev {
			return s.BytesSent, s.BytesRecv
		}
	}
	return 0, 0
}
