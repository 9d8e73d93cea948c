// Package share computes, from every host's demand, the rate each host of a
// flat-mode cluster gives each of its destination-rack classes, so that the
// hosts of a rack together use the rack's whole uplink (and respect each
// destination rack's downlink) when few of them send, rather than a static
// 1/hosts slice each.
//
// The allocation is max-min fair (progressive filling): every flow (a host
// toward a destination rack) grows at the same pace until it reaches its
// demand or one of the links it crosses is full — the source rack's uplink,
// the destination rack's downlink, or the host's NIC — and then stops; the
// others keep growing. A link's spare capacity left by hosts that want
// little goes to the ones that want more; a backlogged flow ([Backlogged])
// wants all it can get.
//
// Every flow, demanding or not, is first given a floor (see [Floor]) so that a
// host that starts sending toward a rack is not stuck at rate zero until
// its demand has gone round the cluster: its class lets it send at the
// floor, the sending shows up as demand at the next exchange, and the next
// computation gives it its share. The floors are reserved before filling, so
// the rates through a link never add up to more than its capacity.
//
// With priorities, each host gives its demand by priority band
// (Host.Bands), and a link serves the bands in strict order, as a
// switch's priority leaves do: a high-priority sender on one host takes
// the rack's uplink from a low-priority sender on another, which keeps
// its floor.
//
// Compute is pure and deterministic: the same inputs give the same rates,
// on every host, whatever the order in which hosts were heard from, as
// long as the inputs are listed in the same order (callers sort hosts by
// name).
package share
