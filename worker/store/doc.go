// Package store is the worker's tiered block store: it keeps objects (input
// blocks, shuffle partitions, task outputs) as files in one directory per
// storage tier (memory, SSD, HDD) and emulates each tier's device bandwidth
// and capacity, so that a testbed whose tiers all live on tmpfs still behaves
// like a host with a slow SSD and a slower HDD.
//
// Each tier has one token bucket per direction (golang.org/x/time/rate),
// shared by every reader or writer of that tier, since a device's bandwidth
// is shared by everything using it. Readers and writers wait for tokens per
// chunk of at most 128 KiB; the bucket holds 20 ms of tokens (at least one
// chunk), starts empty, and is emptied when a transfer starts on an idle
// tier (a full bucket), so a transfer of S bytes takes S/rate. A tier with a rate of 0 is unlimited
// in that direction; its reads come straight from the file, so that io.Copy
// to a *net.TCPConn uses sendfile(2).
//
// SSD and HDD tiers keep their objects out of the page cache by default
// (see [CacheMode]): a write is flushed and its pages dropped
// (posix_fadvise DONTNEED), and a reader's Close drops the pages its read
// brought in, so reads come from the device rather than RAM. The memory
// tier and tiers on tmpfs use the cache.
//
// Objects are written through a [Writer] to a temporary file and appear under
// their key only on [Writer.Commit] (an atomic rename); a tier's capacity
// counts committed objects plus bytes written by open writers, and a write
// that would exceed it fails with [ErrNoSpace].
//
// [Store.Generate] fills an object with deterministic pseudo-random bytes
// derived from (seed, key), so every host can make the same input data
// without shipping it; [GenChecksum] gives its checksum without any I/O.
//
// [Store.Move] moves an object between tiers (a demotion from memory to
// HDD, say) through both tiers' buckets and the destination's capacity,
// checks the copy, and only then removes the source.
//
// Keys are slash-separated relative paths such as "ds/logs/000017"; see
// [ValidKey] for the rules. Files found in a tier directory that this Store
// did not write can be read, but are not counted against the capacity and are
// left alone by [Store.Wipe].
package store
