// Package units reads and writes byte sizes with human units, such as
// 128MiB, 1GiB, 1.5GB or 4096, for every file format and command-line flag
// of racklab (datagen, campaigns, the worker). It sits on neutral ground so
// that coordinator, worker, datagen and bench may all import it. Binary units (KiB, MiB, GiB, TiB, PiB, EiB) are powers of 1024;
// decimal ones (kB, MB, GB, TB, PB, EB, and the bare K, M, G, T, P, E)
// are powers of 1000.
package units
