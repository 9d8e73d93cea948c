// Package policy holds one sub-package per scheduling policy. Each
// implements engine.HostScheduler or engine.RoundScheduler and the hooks it
// needs. The registry here builds any of them for the drivers from a Spec:
// a name, args decoded strictly over the policy's default Config, and the
// label results go by. A policy declares its args with one Define line:
// its Config (fields tagged with their snake_case arg names), the
// defaults, and its constructor.
package policy
