//go:build !linux

package store

import "errors"

// errNoBypass: the platform has no way to drop a file's pages, so no tier
// bypasses the cache there.
var errNoBypass = errors.New("page-cache bypass not supported on this platform")

func fdatasync(int) error        { return errNoBypass }
func fadviseDontNeed(int) error  { return errNoBypass }
func syncUnsupported(error) bool { return true }

func onMemoryFS(string) (bool, error) { return false, errNoBypass }
