// Package skew computes the cross-rack Skew of Shadow (shadow.md §2.1):
// the load of the most loaded rack link over that of the least loaded one
// in use, each rack's uplink and downlink counted apart. Shadow and KMN
// predict it from per-rack map and reducer counts; the metrics measure it
// over the bytes the rack links carried. One definition serves all three.
package skew
