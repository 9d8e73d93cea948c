package dataplane

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/worker/store"
)

// A writer that fails after sending its output's copies removes them with
// DELETE (worker/task). A copy may still be arriving when the DELETE does:
// the last replica of a pipeline commits as soon as it has the bytes,
// while the writer may already have given up (killed, or a replica before
// it failed). The server therefore remembers the keys it deleted for a
// while, and a PUT or PIPE of such a key fails instead of storing it.
// Keys are an attempt's own, and a run's own too (coordinator/live's
// OutputKey, for workers that stay up from one run to the next): none is
// written again once its writer has deleted it.

// deletedTTL is how long a deleted key is remembered: far longer than a
// copy takes to arrive after its writer failed.
const deletedTTL = 10 * time.Minute

type deletedKey struct {
	tier cluster.TierKind
	key  string
}

// tombstones are the keys deleted recently, with when.
type tombstones struct {
	at     map[deletedKey]time.Time
	pruned time.Time
}

func (t *tombstones) add(k deletedKey, now time.Time) {
	if t.at == nil {
		t.at = make(map[deletedKey]time.Time)
	}
	if now.Sub(t.pruned) > deletedTTL/2 {
		for k, when := range t.at {
			if now.Sub(when) > deletedTTL {
				delete(t.at, k)
			}
		}
		t.pruned = now
	}
	t.at[k] = now
}

func (t *tombstones) has(k deletedKey, now time.Time) bool {
	when, ok := t.at[k]
	return ok && now.Sub(when) <= deletedTTL
}

// errDeleted is a PUT of a key a DELETE removed.
var errDeleted = fmt.Errorf("deleted by its writer: %w", fs.ErrNotExist)

// deletedBefore refuses a PUT or PIPE of a key already deleted.
func (s *Server) deletedBefore(req *request) error {
	s.deletedMu.Lock()
	defer s.deletedMu.Unlock()
	if s.deleted.has(deletedKey{req.Tier, req.Key}, time.Now()) {
		return fmt.Errorf("%s %q: %w", req.Tier, req.Key, errDeleted)
	}
	return nil
}

// commit commits a PUT's object, then removes it again if a DELETE of its
// key came before: one that comes after finds it committed and removes
// it. The commit itself (a flush to disk on a tier that bypasses the page
// cache) runs outside the lock, so that commits of other objects go on.
func (s *Server) commit(w *store.Writer, req *request) error {
	if err := w.Commit(); err != nil {
		return err
	}
	s.deletedMu.Lock()
	defer s.deletedMu.Unlock()
	if !s.deleted.has(deletedKey{req.Tier, req.Key}, time.Now()) {
		return nil
	}
	if err := s.st.Remove(req.Tier, req.Key); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %q: %w, and removing it: %v", req.Tier, req.Key, errDeleted, err)
	}
	return fmt.Errorf("%s %q: %w", req.Tier, req.Key, errDeleted)
}

// remove serves a DELETE: the object goes, if it is there, and its key is
// remembered. Deleting what is not there succeeds: a writer cleaning up
// does not know which of its copies got stored. It reports whether the
// connection can go on.
func (s *Server) remove(sc *sconn, br *bufio.Reader, req *request) bool {
	s.deletedMu.Lock()
	err := s.st.Remove(req.Tier, req.Key)
	gone := err == nil || errors.Is(err, fs.ErrNotExist)
	if gone {
		// remembered only for a key the store takes: a DELETE refused
		// (no such tier, a bad key) leaves nothing behind
		s.deleted.add(deletedKey{req.Tier, req.Key}, time.Now())
	}
	s.deletedMu.Unlock()
	if !gone {
		s.errs.Add(1)
		s.logf("dataplane: %s: DELETE %s %q: %v", sc.remote, req.Tier, req.Key, err)
		s.reject(sc, br, err)
		return false
	}
	resp := appendResponse(nil, &response{Status: StatusOK})
	if _, err := sc.c.Write(resp); err != nil {
		s.logf("dataplane: %s: DELETE %s %q: deleted, but: %v", sc.remote, req.Tier, req.Key, err)
		return false
	}
	return true
}

// Delete removes key from tier at the server at addr, and keeps a copy of
// it still arriving there from being stored. It succeeds whether or not the
// object was there. Cancelling ctx aborts it.
func (c *Client) Delete(ctx context.Context, addr string, tier cluster.TierKind, key string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("dataplane: delete %s at %s: %w", tier, addr, err)
	}
	wrap := func(err error) error {
		return fmt.Errorf("dataplane: delete %s %q at %s: %w", tier, key, addr, err)
	}
	for attempt := 0; ; attempt++ {
		cc, reused, err := c.get(ctx, addr, DSCP(Output))
		if err != nil {
			return wrap(err)
		}
		stop := context.AfterFunc(ctx, cc.abort)
		stale, err := deleteOn(cc, tier, key)
		if !stop() {
			if err != nil {
				return wrap(ctx.Err())
			}
			return nil
		}
		if err == nil {
			c.put(cc)
			return nil
		}
		cc.c.Close()
		if stale && reused && attempt == 0 {
			continue // the server had closed the pooled connection: redial once
		}
		return wrap(err)
	}
}

// deleteOn runs a DELETE on cc. stale reports a failure before any
// response byte arrived, as on a pooled connection the server had closed.
func deleteOn(cc *cconn, tier cluster.TierKind, key string) (stale bool, err error) {
	// marked as the output it cleans up after
	req := request{Op: opDelete, Class: Output, DSCP: DSCP(Output), Tier: tier, Key: key}
	cc.wmu.Lock()
	err = SetDSCP(cc.c, req.DSCP)
	if err == nil {
		_, err = cc.c.Write(appendRequest(make([]byte, 0, reqFixed+len(key)+reqTail), &req))
	}
	cc.wmu.Unlock()
	if err != nil {
		return true, err
	}
	resp, err := parseResponse(cc.br)
	if err != nil {
		return isStale(err), fmt.Errorf("reading response: %w", err)
	}
	if resp.Status != StatusOK {
		return false, &RemoteError{Status: resp.Status, Msg: resp.Msg}
	}
	return false, nil
}
