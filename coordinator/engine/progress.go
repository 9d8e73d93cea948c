package engine

import "fmt"

// Progress tells the engine how many input bytes a running attempt has
// received so far: the simulator at its phase changes and fetches, the
// live driver from the workers' heartbeats. Counts never go down.
func (e *Engine) Progress(id AttemptID, received int64) error {
	a := e.attempts[id]
	if a == nil {
		return fmt.Errorf("attempt %d is not running", id)
	}
	if received < 0 {
		return fmt.Errorf("attempt %d: negative progress %d", id, received)
	}
	a.Received = max(a.Received, received)
	return nil
}

// InputDone tells the engine that a running attempt has its whole input:
// a map has read its block, a reduce or generic attempt has fetched every
// partition of its complete input. It is told once; a policy that is an
// InputDoneHook hears of it (PushBox, NEAT and Shadow act on it).
func (e *Engine) InputDone(id AttemptID) error {
	a := e.attempts[id]
	if a == nil {
		return fmt.Errorf("attempt %d is not running", id)
	}
	if a.InputDone {
		return nil
	}
	if !a.InputFixed {
		return fmt.Errorf("attempt %d cannot have its whole input before its upstream is done", id)
	}
	a.InputDone, a.InputDoneAt = true, e.now
	a.Received = max(a.Received, a.InputBytes)
	if h, ok := e.policy.(InputDoneHook); ok {
		h.InputDone(&e.ctx, a)
	}
	return nil
}
