// Package interrupt stops racklab's commands cleanly on the signals that
// ask a process to stop: SIGINT (Ctrl-C), SIGTERM (kill, systemd) and
// SIGHUP (a closed terminal or ssh session). The first cancels the
// command's context, so that the command removes what it made (an
// emulated cluster's namespaces, links, mounts and workers) and keeps what
// it measured; a second says that this is under way; a third exits at
// once. A command that a signal stopped exits with 128 + the signal's
// number, as a shell reports a process the signal killed, so that scripts
// tell an interrupt from a failure. Once a signal stopped it, a write to
// a stdout or stderr whose reader the signal stopped too (| tee) fails
// rather than kill the command with SIGPIPE halfway through its cleanup.
package interrupt
