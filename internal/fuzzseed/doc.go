// Package fuzzseed gives fuzz targets their seed corpus from files of the
// repository (campaigns, recorded attempts), so that every target seeds
// from real inputs in the same way and fails when the files are missing
// rather than fuzzing from nothing.
package fuzzseed
