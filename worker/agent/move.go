package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
)

// moveCommand is wire.MoveReplica without its Validate method, so that a
// command that decodes but is invalid can still be answered by request id.
type moveCommand wire.MoveReplica

// moveReplica starts the move a MoveReplica asks for. Every command that
// decodes gets a ReplicaMoved answer; an invalid one (empty key, one tier
// named twice) is also reported as a problem, and one that does not decode
// only as a problem, since there is no request to answer.
func (w *Worker) moveReplica(data []byte, typ string) {
	var body moveCommand
	if err := wire.Decode(data, typ, &body); err != nil {
		w.problem("dropped a command: %v", err)
		return
	}
	m := wire.MoveReplica(body)
	ans := wire.ReplicaMoved{Host: w.cfg.Host, Request: m.Request, Key: m.Key, From: m.From, To: m.To}
	refuse := func(err error) {
		ans.Error = err.Error()
		w.publish(wire.TypeReplicaMoved, &ans)
	}
	if err := m.Validate(); err != nil {
		w.problem("refused a command: invalid %s: %v", typ, err)
		refuse(err)
		return
	}
	from, err := cluster.ParseTierKind(m.From)
	if err != nil {
		refuse(err)
		return
	}
	to, err := cluster.ParseTierKind(m.To)
	if err != nil {
		refuse(err)
		return
	}
	w.mu.Lock()
	ctx := w.movesCtx
	w.moves.Add(1)
	w.mu.Unlock()
	go func() {
		defer w.moves.Done()
		start := time.Now()
		n, err := w.st.Move(ctx, m.Key, from, to)
		ans.Seconds = time.Since(start).Seconds()
		if err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("move cancelled: the worker is resetting or stopping (%w)", err)
			}
			refuse(err)
			return
		}
		ans.OK, ans.Bytes = true, n
		w.publish(wire.TypeReplicaMoved, &ans)
	}()
}

// stopMoves cancels the moves under way and waits for them; each answers
// its failure.
func (w *Worker) stopMoves() {
	w.mu.Lock()
	cancel := w.movesCancel
	w.movesCtx, w.movesCancel = context.WithCancel(context.Background())
	w.mu.Unlock()
	cancel()
	w.moves.Wait()
}
