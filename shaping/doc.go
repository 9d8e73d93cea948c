// Package shaping builds racklab's network: emulated clusters of racks made
// of Linux network namespaces, kernel traffic shaping of rack links, and the
// kernel counters that are racklab's ground truth for cross-rack traffic.
//
// # Emulated clusters
//
// [Up] builds a cluster described by a [ClusterSpec] on one machine:
//
//   - every host is a network namespace "<prefix>-r<R>h<H>" with two
//     interfaces: a data interface ([DataDev]) and a management interface
//     ([MgmtDev]);
//   - the data plane lives in a separate "fabric" namespace "<prefix>-core",
//     so the root namespace is not cluttered with it. In [Switched] mode each
//     rack has a bridge (its top-of-rack switch, "br-r<R>") and each rack
//     bridge meets the core bridge ("br-core") through a veth pair
//     "r<R>-up"/"r<R>-down" whose two ends carry HTB shapers: egress on the
//     rack end is the uplink, egress on the core end is the downlink. In
//     [Flat] mode all hosts hang off one bridge ("br-flat") and shaping is
//     done on each host's data interface by a [HostShaper];
//   - the management network is a bridge "<prefix>-mgmt" in the root
//     namespace, whose address ([Cluster.MgmtIP]) is where the coordinator and
//     NATS listen; it is never shaped.
//
// Data addresses are 10.X.R.(H+1)/16 (X derived from the prefix) and exist
// only inside the emulator's namespaces, so the data plane is pure L2.
// Management addresses come from a free /20 of the benchmarking range
// 198.18.0.0/15 (RFC 2544), chosen so as not to overlap any address or route
// of the root namespace. IPv6 is disabled on every interface the emulator
// makes, so that neighbour discovery does not pollute the counters.
//
// Host NICs are shaped when [ClusterSpec.HostNICBps] (or a rack's
// [RackSpec.HostNICBps], or a host's own in [RackSpec.HostNICsBps]) is
// set: an HTB group at the host's NIC rate on the
// fabric's port toward the host (egress there is what the host receives:
// the receiver downlink) in both modes, and on the host's data interface
// (what it sends) in [Switched] mode. In [Flat] mode the data interface
// belongs to the worker's [HostShaper], so a host's sending is shaped only
// toward other racks there. [Cluster.HostNICCounters] reads them.
//
// # Host shaping
//
// [HostShaper] is what a worker installs on its own data NIC, on a lab host
// or inside an emulated host in [Flat] mode: an HTB root qdisc with an
// unshaped default class, one class per destination rack (ceil = rate), and
// u32 filters on destination IPv4 addresses. Control traffic (NATS,
// memberlist, SSH) goes to addresses that are never in a rack's filter set,
// so it lands in the unshaped default class.
//
// A static rate per class splits a rack's uplink equally among its hosts.
// With demand sharing (package share, worker --shape-share), the workers
// exchange their demand every 100 ms and set their classes
// ([HostShaper.SetRackRate]) to their max-min fair share of the rack's
// uplink and the destination racks' downlinks, so that one busy host gets
// what its idle rack-mates leave. [HostShaper.SetPooled] puts the rack
// classes under one host class, from which each may borrow up to its ceil
// ([HostShaper.SetRackRates]).
//
// # Priorities
//
// With [ClusterSpec.Priorities] (rack links and host NICs) or
// [HostShaper.SetPriorities] (host classes), every shaped group gets one HTB
// leaf per [Priority] (HTB prio = the band; u32 on the IPv4 TOS byte), chosen
// by the DSCP of the packet ([SetPriority] marks a socket, and may be called
// while it carries data). The priorities, their codepoints and their order
// are the priority table of internal/traffic, which the coordinator's
// priority pushes follow too; unmarked packets and unknown codepoints go to
// its best-effort leaf. The leaves share the group's rate and a higher
// priority borrows it first; each leaf is guaranteed 1% ([LeafGuarantee]) so
// none starves. Only HTB and u32 are used: kernels without the prio, fq,
// flower or police modules do.
//
// # Counters
//
// [Cluster.RackLinkCounters] reads the kernel: interface counters of the rack
// link veths in [Switched] mode, HTB class counters of the hosts' shapers in
// [Flat] mode. Every qdisc this package makes has handle major [QdiscMajor],
// which is how it recognises its own objects.
//
// # Safety
//
// Everything made for a cluster carries its prefix and is removed by
// [Cluster.Down], by [Up] on failure, and by [Cleanup] after a crash.
// [Leftovers] lists what is still present. Because a cleanup removes
// whatever has the prefix, the process that builds a cluster holds the
// prefix's lock ([LockPrefix]) until Down: Up and Cleanup in another
// process are refused ([InUseError], naming the holder), and the kernel
// frees the lock when its holder exits, however it exits.
// [HostShaper.Close] and [RemoveHostShaper] remove a host's qdisc, and a
// new HostShaper replaces one left by a crashed worker but never one that
// racklab did not make.
// Namespaces are entered only on dedicated, locked OS threads ([Do],
// [StartIn]); a thread that cannot be returned to its namespace is discarded
// rather than reused. Handling signals (calling Down) is the caller's job.
//
// Every operation here needs CAP_NET_ADMIN (and CAP_SYS_ADMIN for namespaces).
package shaping
