package workload

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// LoadDatasets reads a datasets file; see ParseDatasets.
func LoadDatasets(path string, t *cluster.Topology) (*Datasets, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseDatasets(path, data, t)
}

// ParseDatasets reads datasets from YAML text (name is the file name for
// error messages), resolving replica host names in t, and validates them.
// t may be nil when no dataset is placed.
func ParseDatasets(name string, data []byte, t *cluster.Topology) (*Datasets, error) {
	d, top, err := yamlfile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	p := datasetsParser{d: d, t: t, index: map[string]int{}}
	ds := p.parse(top)
	if err := d.Err(); err != nil {
		return nil, err
	}
	if err := ds.Validate(t); err != nil {
		line := 0
		if n, _, ok := quotedAfter(err.Error(), "dataset "); ok {
			if i, ok := p.index[n]; ok {
				line = p.lines[i]
			}
		}
		return nil, &yamlfile.Error{File: name, Line: line, Msg: err.Error()}
	}
	return ds, nil
}

type datasetsParser struct {
	d     *yamlfile.Decoder
	t     *cluster.Topology
	hosts map[string]cluster.HostID // built on the first replica
	index map[string]int            // dataset name → index
	lines []int
}

func (p *datasetsParser) parse(top *yaml.Node) *Datasets {
	d := p.d
	m := d.Map(top, "")
	m.Known("block_size_bytes", "replication", "datasets")
	m.Require("datasets")
	var defBlock, defRepl int64
	hasBlock, hasRepl := m.Has("block_size_bytes"), m.Has("replication")
	if hasBlock {
		defBlock = m.Int("block_size_bytes")
		checkByteField(m, "block_size_bytes", defBlock, 1)
	}
	if hasRepl {
		defRepl = count(m, "replication", MaxReplicas)
	}
	items := m.Seq("datasets")
	ds := &Datasets{}
	if d.Err() != nil || len(items) == 0 {
		return ds
	}
	ds.Datasets = make([]Dataset, 0, len(items))
	p.lines = make([]int, 0, len(items))
	for i, n := range items {
		dm := d.Map(n, "dataset #"+strconv.Itoa(i+1))
		var x Dataset
		x.Name = dm.Str("name")
		if x.Name != "" {
			dm.Where = "dataset " + strconv.Quote(x.Name)
		}
		dm.Known("name", "size_bytes", "block_size_bytes", "replication", "blocks")
		dm.Require("name")
		if d.Err() != nil {
			return ds
		}
		if x.Name == "" {
			dm.Fail("name", "name must not be empty")
			return ds
		}
		if first, dup := p.index[x.Name]; dup {
			dm.Fail("name", "dataset name %q is used twice (first at line %d)", x.Name, p.lines[first])
			return ds
		}
		p.index[x.Name] = len(p.lines)
		p.lines = append(p.lines, dm.Line)
		if dm.Has("size_bytes") {
			x.Size = dm.Int("size_bytes")
			checkByteField(dm, "size_bytes", x.Size, 0)
		}
		if dm.Has("block_size_bytes") {
			x.BlockSize = dm.Int("block_size_bytes")
			checkByteField(dm, "block_size_bytes", x.BlockSize, 1)
		}
		if dm.Has("replication") {
			x.Replication = int(count(dm, "replication", MaxReplicas))
		}
		blocks := dm.Seq("blocks")
		if d.Err() != nil {
			return ds
		}
		if len(blocks) == 0 {
			// Unplaced: the file's defaults fill in.
			if !dm.Has("size_bytes") {
				dm.Fail("", "missing field \"size_bytes\" (or blocks)")
				return ds
			}
			if !dm.Has("block_size_bytes") {
				if !hasBlock {
					dm.Fail("", "missing field \"block_size_bytes\" (here or at the top of the file)")
					return ds
				}
				x.BlockSize = defBlock
			}
			if !dm.Has("replication") && hasRepl {
				x.Replication = int(defRepl)
			}
		} else {
			x.Blocks = p.blocks(dm, blocks)
			if d.Err() != nil {
				return ds
			}
			if dm.Has("size_bytes") && x.Size != x.TotalBytes() {
				dm.Fail("size_bytes", "size_bytes is %d but the blocks add up to %d", x.Size, x.TotalBytes())
				return ds
			}
		}
		ds.Datasets = append(ds.Datasets, x)
	}
	return ds
}

func (p *datasetsParser) blocks(dm *yamlfile.Map, items []*yaml.Node) []Block {
	d := p.d
	if p.t == nil {
		dm.Fail("blocks", "placed datasets need a topology to resolve replica hosts")
		return nil
	}
	if p.hosts == nil {
		p.hosts = make(map[string]cluster.HostID, len(p.t.Hosts))
		for i := range p.t.Hosts {
			p.hosts[p.t.Hosts[i].Name] = cluster.HostID(i)
		}
	}
	out := make([]Block, 0, len(items))
	var total int64
	for i, n := range items {
		bm := d.Map(n, dm.Where+" block #"+strconv.Itoa(i+1))
		bm.Known("size_bytes", "replicas")
		bm.Require("size_bytes", "replicas")
		b := Block{Size: bm.Int("size_bytes")}
		if d.Err() != nil {
			return nil
		}
		if b.Size < 0 || b.Size > MaxBytes {
			checkByteField(bm, "size_bytes", b.Size, 0)
			return nil
		}
		if total += b.Size; total > MaxBytes {
			bm.Fail("size_bytes", "the dataset's blocks add up to more than %s bytes", maxBytesText)
			return nil
		}
		reps := bm.Seq("replicas")
		if d.Err() != nil {
			return nil
		}
		if len(reps) == 0 {
			bm.Fail("replicas", "replicas: the list is empty")
			return nil
		}
		// said before each replica is compared with the earlier ones, a
		// cost quadratic in the list's length
		if len(reps) > MaxReplicas {
			bm.Fail("replicas", "replicas: %d replicas is above the limit of %d", len(reps), MaxReplicas)
			return nil
		}
		b.Replicas = make([]Replica, 0, len(reps))
		for _, rn := range reps {
			r, ok := p.replica(bm.Where, rn)
			if !ok {
				return nil
			}
			for _, prev := range b.Replicas {
				if prev == r {
					d.Fail(rn.Line, bm.Where, "replicas: %q is listed twice", rn.Value)
					return nil
				}
			}
			b.Replicas = append(b.Replicas, r)
		}
		out = append(out, b)
	}
	return out
}

// replica reads "host:tier".
func (p *datasetsParser) replica(where string, n *yaml.Node) (Replica, bool) {
	d := p.d
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		d.Fail(n.Line, where, "replicas: want \"host:tier\" strings")
		return Replica{}, false
	}
	i := strings.LastIndexByte(n.Value, ':')
	if i < 0 {
		d.Fail(n.Line, where, "replicas: %q is not \"host:tier\"", n.Value)
		return Replica{}, false
	}
	host, tier := n.Value[:i], n.Value[i+1:]
	id, ok := p.hosts[host]
	if !ok {
		d.Fail(n.Line, where, "replicas: %q: unknown host %q", n.Value, host)
		return Replica{}, false
	}
	kind, err := cluster.ParseTierKind(tier)
	if err != nil {
		d.Fail(n.Line, where, "replicas: %q: %v", n.Value, err)
		return Replica{}, false
	}
	if _, ok := p.t.Hosts[id].Tier(kind); !ok {
		d.Fail(n.Line, where, "replicas: %q: host %q has no %s tier", n.Value, host, kind)
		return Replica{}, false
	}
	return Replica{Host: id, Tier: kind}, true
}

// WriteDatasets writes ds in the format ParseDatasets reads; t names the
// hosts of placed datasets' replicas and may be nil when none is placed.
// The most common block size and replication of the unplaced datasets go
// to the top of the file as their defaults.
func WriteDatasets(w io.Writer, ds *Datasets, t *cluster.Topology) error {
	e := yamlfile.NewEmitter(w)
	type br struct {
		block int64
		repl  int
	}
	counts := map[br]int{}
	var def br
	best := 0
	for i := range ds.Datasets {
		x := &ds.Datasets[i]
		if x.Placed() {
			continue
		}
		k := br{x.BlockSize, x.Replication}
		counts[k]++
		if counts[k] > best {
			best, def = counts[k], k
		}
	}
	if best > 0 {
		e.Raw("block_size_bytes: ")
		e.Int(def.block)
		e.Raw("\nreplication: ")
		e.Int(int64(def.repl))
		e.Raw("\n")
	}
	if len(ds.Datasets) == 0 {
		e.Raw("datasets: []\n")
		return e.Flush()
	}
	e.Raw("datasets:\n")
	for i := range ds.Datasets {
		x := &ds.Datasets[i]
		if !x.Placed() {
			e.Raw("  - {name: ")
			e.Str(x.Name)
			e.Raw(", size_bytes: ")
			e.Int(x.Size)
			if x.BlockSize != def.block {
				e.Raw(", block_size_bytes: ")
				e.Int(x.BlockSize)
			}
			if x.Replication != def.repl {
				e.Raw(", replication: ")
				e.Int(int64(x.Replication))
			}
			e.Raw("}\n")
			continue
		}
		e.Raw("  - name: ")
		e.Str(x.Name)
		if x.Size != 0 {
			e.Raw("\n    size_bytes: ")
			e.Int(x.Size)
		}
		if x.BlockSize != 0 {
			e.Raw("\n    block_size_bytes: ")
			e.Int(x.BlockSize)
		}
		if x.Replication != 0 {
			e.Raw("\n    replication: ")
			e.Int(int64(x.Replication))
		}
		e.Raw("\n    blocks:\n")
		for bi, b := range x.Blocks {
			e.Raw("      - {size_bytes: ")
			e.Int(b.Size)
			e.Raw(", replicas: [")
			for ri, r := range b.Replicas {
				if t == nil || r.Host < 0 || int(r.Host) >= len(t.Hosts) {
					e.Fail(fmt.Errorf("dataset %q block %d: replica on host %d, which the topology does not have", x.Name, bi, r.Host))
					break
				}
				if int(r.Tier) >= cluster.NumTierKinds {
					e.Fail(fmt.Errorf("dataset %q block %d: bad tier kind %d", x.Name, bi, r.Tier))
					break
				}
				if ri > 0 {
					e.Raw(", ")
				}
				e.Str(t.Hosts[r.Host].Name + ":" + r.Tier.String())
			}
			e.Raw("]}\n")
		}
		if e.Err() != nil {
			break
		}
	}
	return e.Flush()
}
