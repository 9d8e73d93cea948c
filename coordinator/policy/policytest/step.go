package policytest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
)

// step runs one driver command against the engine and prints what came
// out of it.
func (s *scenario) step(cmd string, a *args) (string, error) {
	if err := s.built(cmd, true); err != nil {
		return "", err
	}
	switch cmd {
	case "advance":
		if !a.has("t") {
			return "", fmt.Errorf("advance: missing t=")
		}
		now := a.float("t", 0)
		if err := a.done(); err != nil {
			return "", err
		}
		if err := s.eng.Advance(now); err != nil {
			return "", fmt.Errorf("advance: %v", err)
		}
		return s.events(""), nil
	case "offer":
		return s.offer(a)
	case "round":
		if err := a.done(); err != nil {
			return "", err
		}
		s.eng.Schedule()
		return s.events(""), nil
	case "succeed", "fail":
		return s.endAttempt(cmd, a)
	case "lose-host":
		h, err := s.host(a.required("host"))
		if e := a.done(); e != nil {
			return "", e
		}
		if err != nil {
			return "", fmt.Errorf("lose-host: %v", err)
		}
		if err := s.eng.HostLost(h); err != nil {
			return "refused: " + err.Error(), nil
		}
		return s.events(""), nil
	case "network":
		return s.network(a)
	case "progress", "input-done":
		return s.input(cmd, a)
	}
	return "", fmt.Errorf("unknown step %q", cmd)
}

// offer: offer host=h3[,h1...] [times=1]. Each heartbeat's events are
// prefixed with its number and host when there is more than one.
func (s *scenario) offer(a *args) (string, error) {
	refs := a.list("host")
	times := a.int("times", 1)
	if err := a.done(); err != nil {
		return "", err
	}
	if len(refs) == 0 {
		return "", fmt.Errorf("offer: missing host=")
	}
	if times < 1 {
		return "", fmt.Errorf("offer: times=%d, want at least 1", times)
	}
	var hosts []cluster.HostID
	for _, r := range refs {
		h, err := s.host(r)
		if err != nil {
			return "", fmt.Errorf("offer: %v", err)
		}
		hosts = append(hosts, h)
	}
	if len(hosts) == 1 && times == 1 {
		s.eng.Offer(hosts[0])
		return s.events(""), nil
	}
	var b strings.Builder
	n := 0
	for range times {
		for _, h := range hosts {
			n++
			s.eng.Offer(h)
			b.WriteString(s.events(fmt.Sprintf("#%d %s: ", n, s.hostLabel(h))))
		}
	}
	return b.String(), nil
}

// endAttempt: succeed|fail attempt=N, or job=j stage=S task=T (the
// task's only running attempt); fail takes [reason=...].
func (s *scenario) endAttempt(cmd string, a *args) (string, error) {
	reason := "failed by the scenario"
	if cmd == "fail" {
		reason = a.str("reason", reason)
	}
	id, err := s.attemptArg(a)
	if e := a.done(); e != nil {
		return "", e
	}
	if err != nil {
		return "", fmt.Errorf("%s: %v", cmd, err)
	}
	if cmd == "succeed" {
		err = s.eng.AttemptSucceeded(id, nil)
	} else {
		err = s.eng.AttemptFailed(id, reason)
	}
	if err != nil {
		return "refused: " + err.Error(), nil
	}
	return s.events(""), nil
}

func (s *scenario) attemptArg(a *args) (engine.AttemptID, error) {
	if a.has("attempt") {
		ref := strings.TrimPrefix(a.str("attempt", ""), "a")
		n, err := strconv.ParseInt(ref, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("attempt=%q: want a number (or a<number>)", a.vals["attempt"])
		}
		id := engine.AttemptID(n)
		if !slices.Contains(s.launched, id) {
			return 0, fmt.Errorf("attempt a%d was never launched", id)
		}
		return id, nil
	}
	if !a.has("job") {
		return 0, fmt.Errorf("want attempt=N, or job= stage= task=")
	}
	name, stage, task := a.str("job", ""), a.int("stage", 0), a.int("task", 0)
	j, err := s.jobByName(name)
	if err != nil {
		return 0, err
	}
	if stage < 0 || stage >= len(j.Stages) {
		return 0, fmt.Errorf("job %s has no stage %d", j.Spec.ID, stage)
	}
	if task < 0 || task >= len(j.Stages[stage].Tasks) {
		return 0, fmt.Errorf("job %s stage %d has no task %d", j.Spec.ID, stage, task)
	}
	running := j.Stages[stage].Tasks[task].Running()
	if len(running) != 1 {
		return 0, fmt.Errorf("task %s/%d/%d has %d running attempts; name one with attempt=", j.Spec.ID, stage, task, len(running))
	}
	return running[0], nil
}

// input: progress attempt=N bytes=B (input bytes received so far), or
// input-done attempt=N (the attempt has its whole input).
func (s *scenario) input(cmd string, a *args) (string, error) {
	id, err := s.attemptArg(a)
	bytes := int64(0)
	if cmd == "progress" {
		if !a.has("bytes") {
			return "", fmt.Errorf("progress: missing bytes=")
		}
		bytes = int64(a.int("bytes", 0))
	}
	if e := a.done(); e != nil {
		return "", e
	}
	if err != nil {
		return "", fmt.Errorf("%s: %v", cmd, err)
	}
	if cmd == "progress" {
		err = s.eng.Progress(id, bytes)
	} else {
		err = s.eng.InputDone(id)
	}
	if err != nil {
		return "refused: " + err.Error(), nil
	}
	return s.events(""), nil
}

// network: network [up=0.95,0] [down=0,0] [rx=...] [xrx=...]
// [threshold=0.8]. Loads are per rack, rx (all received) and xrx (its
// part from other racks) per host; what is not given keeps its value.
func (s *scenario) network(a *args) (string, error) {
	var n engine.NetworkStatus
	var err error
	racks, hosts := len(s.topo.Racks), len(s.topo.Hosts)
	if n.UplinkLoad, err = floats(a, "up", racks, "racks"); err != nil {
		return "", err
	}
	if n.DownlinkLoad, err = floats(a, "down", racks, "racks"); err != nil {
		return "", err
	}
	if n.HostRxBps, err = floats(a, "rx", hosts, "hosts"); err != nil {
		return "", err
	}
	if n.HostCrossRxBps, err = floats(a, "xrx", hosts, "hosts"); err != nil {
		return "", err
	}
	n.SaturationThreshold = a.float("threshold", 0)
	if err := a.done(); err != nil {
		return "", err
	}
	s.eng.SetNetwork(n)
	return s.events(""), nil
}

// floats reads a list of exactly want numbers, or nil when key is absent.
func floats(a *args, key string, want int, of string) ([]float64, error) {
	vals := a.list(key)
	if vals == nil {
		return nil, nil
	}
	if len(vals) != want {
		return nil, fmt.Errorf("network: %s= has %d values; the cluster has %d %s", key, len(vals), want, of)
	}
	out := make([]float64, len(vals))
	for i, v := range vals {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("network: %s=: %q is not a number", key, v)
		}
		out[i] = f
	}
	return out, nil
}

// events drains the engine's Ready and prints it, one event a line, each
// line prefixed: jobs submitted, launches, priority changes, kills,
// attempts ended, jobs finished. Nothing happening prints "(none)".
func (s *scenario) events(prefix string) string {
	r := s.eng.Ready()
	var lines []string
	add := func(format string, v ...any) { lines = append(lines, prefix+fmt.Sprintf(format, v...)) }
	for i, j := range s.eng.Jobs() {
		// a waiting job that fails (its parent did) was never submitted
		if s.states[i] == engine.JobWaiting && j.State != engine.JobWaiting && j.State != engine.JobFailed {
			add("submit %s", j.Spec.ID)
		}
		s.states[i] = j.State
	}
	for _, at := range r.Launches {
		s.launched = append(s.launched, at.ID)
		dup := ""
		if at.Duplicate {
			dup = " duplicate"
		}
		add("launch a%d %s on %s locality=%s prio=%d%s", at.ID, s.taskLabel(at.Task), s.hostLabel(at.Host), at.Locality, at.Priority, dup)
	}
	for _, id := range r.Priorities {
		if at := s.eng.Attempt(id); at != nil {
			add("priority a%d prio=%d", id, at.Priority)
		} else {
			add("priority a%d (ended)", id)
		}
	}
	for _, id := range r.Kills {
		add("kill a%d", id)
	}
	for _, u := range r.Shuffles {
		if u.Complete {
			add("shuffle a%d complete", u.Attempt)
		} else {
			add("shuffle a%d", u.Attempt)
		}
	}
	for _, m := range r.TierMoves {
		add("move %s[%d] on %s %s->%s", m.Dataset, m.Block, s.hostLabel(m.Host), m.From, m.To)
	}
	for _, rec := range r.Attempts {
		add("end a%d %s on %s %s", rec.ID, s.taskLabel(rec.Task), s.hostLabel(rec.Host), rec.Outcome)
	}
	for _, rec := range r.Jobs {
		if rec.Reason != "" {
			add("job %s %s: %s", rec.Name, rec.State, rec.Reason)
		} else {
			add("job %s %s", rec.Name, rec.State)
		}
	}
	if err := s.eng.PolicyErr(); err != nil && !s.stopped {
		// the drivers end the run here
		add("policy stopped: %v", err)
		s.stopped = true
	}
	if len(lines) == 0 {
		return prefix + "(none)\n"
	}
	return strings.Join(lines, "\n") + "\n"
}
