package heldcount

// Count is a class's bytes and packets.
type Count struct{ Bytes, Packets uint64 }

// Held holds the classes of many hosts, each class named by a K (a rack
// index or name). The zero value is ready; it is not safe for concurrent
// use.
type Held[K comparable] struct {
	hosts map[int]map[K]*class
}

// class is one class's last raw read, what its earlier lives counted,
// and whether it was missing at the last read.
type class struct {
	last, base Count
	gone       bool
}

// Read takes host's raw class counts and returns them held: every class
// the host ever had, with what it counted in all its lives.
func (h *Held[K]) Read(host int, raw map[K]Count) map[K]Count {
	if h.hosts == nil {
		h.hosts = map[int]map[K]*class{}
	}
	classes := h.hosts[host]
	if classes == nil {
		classes = map[K]*class{}
		h.hosts[host] = classes
	}
	for k, cur := range raw {
		c := classes[k]
		switch {
		case c == nil:
			c = &class{}
			classes[k] = c
		case c.gone || cur.Bytes < c.last.Bytes || cur.Packets < c.last.Packets:
			// a new life of the class: the old one's count is kept
			c.base.Bytes += c.last.Bytes
			c.base.Packets += c.last.Packets
		}
		c.last, c.gone = cur, false
	}
	out := make(map[K]Count, len(classes))
	for k, c := range classes {
		if _, ok := raw[k]; !ok {
			c.gone = true
		}
		out[k] = Count{Bytes: c.base.Bytes + c.last.Bytes, Packets: c.base.Packets + c.last.Packets}
	}
	return out
}
