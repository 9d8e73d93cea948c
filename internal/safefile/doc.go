// Package safefile writes result files so that a crash never leaves a
// half-written file in their place and a symbolic link planted where a
// file is written never redirects the write elsewhere.
//
// Whole files (summaries, markers, reports) are replaced: written to a
// temporary file in the same directory, synced, and renamed over the
// path. rename(2) replaces a symbolic link at the path, it does not
// follow it. Files appended to as a run goes (attempt and job records)
// are created anew with Create.
package safefile
