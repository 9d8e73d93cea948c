// Package policy holds one sub-package per scheduling policy. Each
// implements engine.HostScheduler or engine.RoundScheduler and the hooks it
// needs; New builds any of them by name for the drivers.
package policy
