package yamlfile

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/racklab/racklab/internal/utf8text"
	"gopkg.in/yaml.v3"
)

// Error is a problem at a place in a file.
type Error struct {
	File  string
	Line  int    // 1-based; 0 when unknown
	Where string // the object, e.g. `rack "r1" host "r1h0"`; may be empty
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Where != "" {
		b.WriteString(e.Where)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Decoder walks one parsed document. Its error is sticky: after the first
// problem every accessor returns zero values and Err reports that problem,
// so a walk can check for errors only where it needs to.
type Decoder struct {
	File   string
	err    error
	budget int
}

// maxMergeDepth bounds chains of merge keys (<<), which may be cyclic.
const maxMergeDepth = 32

// Parse reads the first YAML document of data and returns a decoder and
// the document's top-level node, which must be a mapping.
func Parse(file string, data []byte) (d *Decoder, top *yaml.Node, err error) {
	d = &Decoder{File: file, budget: 16*len(data) + 100000}
	if err := checkUTF8(file, data); err != nil {
		return nil, nil, err
	}
	var doc yaml.Node
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = &Error{File: file, Msg: fmt.Sprintf("cannot parse YAML: %v", r)}
			}
		}()
		err = yaml.Unmarshal(data, &doc)
	}()
	if err != nil {
		return nil, nil, d.syntaxError(err)
	}
	n := &doc
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, nil, &Error{File: file, Msg: "file is empty"}
		}
		n = n.Content[0]
	}
	n = d.resolve(n)
	if d.err != nil {
		return nil, nil, d.err
	}
	if n == nil || n.Kind == 0 || isNull(n) {
		return nil, nil, &Error{File: file, Msg: "file is empty"}
	}
	if n.Kind != yaml.MappingNode {
		return nil, nil, &Error{File: file, Line: n.Line, Msg: "the top level must be a mapping of fields, not " + kindName(n)}
	}
	return d, n, nil
}

// checkUTF8 refuses text that is not UTF-8 where it first is not, by
// line and column (yaml.v3 says only "invalid leading UTF-8 octet"). A
// file that starts with a UTF-16 byte order mark is left to yaml.v3,
// which reads UTF-16.
func checkUTF8(file string, data []byte) error {
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return nil
	}
	if bad := utf8text.Check(data); bad != nil {
		return &Error{File: file, Line: bad.Line, Msg: bad.Error() + ": save the file as UTF-8"}
	}
	return nil
}

// syntaxError turns a yaml.v3 error such as "yaml: line 3: mapping values
// are not allowed in this context" into an *Error.
func (d *Decoder) syntaxError(err error) error {
	if e, ok := err.(*Error); ok {
		return e
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				line = n
				msg = strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return &Error{File: d.File, Line: line, Msg: "YAML syntax: " + msg}
}

// Err is the first problem met, or nil.
func (d *Decoder) Err() error { return d.err }

// Fail records a problem at a line unless one is already recorded.
func (d *Decoder) Fail(line int, where, format string, args ...any) {
	if d.err == nil {
		d.err = &Error{File: d.File, Line: line, Where: where, Msg: fmt.Sprintf(format, args...)}
	}
}

// spend charges n units of work against the budget that stops alias bombs.
func (d *Decoder) spend(n int, line int) bool {
	if d.err != nil {
		return false
	}
	d.budget -= n
	if d.budget < 0 {
		d.Fail(line, "", "document too large (too many alias expansions?)")
		return false
	}
	return true
}

func (d *Decoder) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > maxMergeDepth {
			d.Fail(n.Line, "", "alias chain too long")
			return nil
		}
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(n *yaml.Node) string {
	if isNull(n) {
		return "an empty value"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "an empty value"
}

// Seq returns the items of a list node. A null node is an empty list.
func (d *Decoder) Seq(n *yaml.Node, where, field string) []*yaml.Node {
	n = d.resolve(n)
	if d.err != nil || n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.Fail(n.Line, where, "%s: want a list, got %s", field, kindName(n))
		return nil
	}
	if !d.spend(len(n.Content)+1, n.Line) {
		return nil
	}
	return n.Content
}

type field struct {
	key  string
	line int        // line of the key
	val  *yaml.Node // resolved; nil when the value is null
	used bool
}

// Map is a mapping node being read field by field.
type Map struct {
	d      *Decoder
	Where  string // names the object in error messages
	Line   int
	fields []field
	// index maps a key to its place in fields once there are more than
	// indexFrom of them: looking each key up by a scan made a mapping of
	// n keys cost n²/2 comparisons, a minute for a 5 MB file of keys.
	index map[string]int
}

// indexFrom is the number of fields up to which a Map finds a key by a
// scan, cheaper than a hash map for the few fields of most objects.
const indexFrom = 16

// Map opens a mapping node. where names it in error messages until the
// caller sets m.Where to something better (say, once the name is known).
func (d *Decoder) Map(n *yaml.Node, where string) *Map {
	m := &Map{d: d, Where: where}
	n = d.resolve(n)
	if d.err != nil || n == nil {
		return m
	}
	m.Line = n.Line
	if n.Kind != yaml.MappingNode {
		d.Fail(n.Line, where, "want a mapping of fields, got %s", kindName(n))
		return m
	}
	m.collect(n, 0, false)
	return m
}

// collect adds the fields of n; merged fields (from "<<") do not override
// fields already present, and may not collide among themselves silently.
func (m *Map) collect(n *yaml.Node, depth int, merged bool) {
	d := m.d
	if !d.spend(len(n.Content)/2+1, n.Line) {
		return
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := d.resolve(n.Content[i]), d.resolve(n.Content[i+1])
		if d.err != nil {
			return
		}
		if k == nil || v == nil {
			d.Fail(n.Line, m.Where, "broken alias")
			return
		}
		if k.Kind != yaml.ScalarNode {
			d.Fail(k.Line, m.Where, "field names must be plain words, got %s", kindName(k))
			return
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if f := m.find(k.Value); f != nil {
			if merged {
				continue
			}
			d.Fail(k.Line, m.Where, "field %q given twice (first at line %d)", k.Value, f.line)
			return
		}
		f := field{key: k.Value, line: k.Line}
		if !isNull(v) {
			f.val = v
		}
		m.add(f)
	}
	for _, v := range merges {
		if depth >= maxMergeDepth {
			d.Fail(v.Line, m.Where, "merge keys (<<) nested too deeply")
			return
		}
		switch v.Kind {
		case yaml.MappingNode:
			m.collect(v, depth+1, true)
		case yaml.SequenceNode:
			for _, item := range v.Content {
				item = d.resolve(item)
				if item == nil || item.Kind != yaml.MappingNode {
					d.Fail(v.Line, m.Where, "a merge key (<<) takes a mapping or a list of mappings")
					return
				}
				m.collect(item, depth+1, true)
			}
		default:
			d.Fail(v.Line, m.Where, "a merge key (<<) takes a mapping or a list of mappings")
			return
		}
	}
}

// add appends a field, indexing the fields once there are many.
func (m *Map) add(f field) {
	m.fields = append(m.fields, f)
	switch {
	case m.index != nil:
		m.index[f.key] = len(m.fields) - 1
	case len(m.fields) > indexFrom:
		m.index = make(map[string]int, 2*len(m.fields))
		for i := range m.fields {
			m.index[m.fields[i].key] = i
		}
	}
}

func (m *Map) find(key string) *field {
	if m.index != nil {
		if i, ok := m.index[key]; ok {
			return &m.fields[i]
		}
		return nil
	}
	for i := range m.fields {
		if m.fields[i].key == key {
			return &m.fields[i]
		}
	}
	return nil
}

// Keys lists the mapping's field names in file order (merged fields
// after the mapping's own), for mappings whose keys are data, such as a
// policy's args.
func (m *Map) Keys() []string {
	keys := make([]string, len(m.fields))
	for i, f := range m.fields {
		keys[i] = f.key
	}
	return keys
}

// Known reports the first field not among keys as unknown.
func (m *Map) Known(keys ...string) {
	if m.d.err != nil {
		return
	}
next:
	for _, f := range m.fields {
		for _, k := range keys {
			if f.key == k {
				continue next
			}
		}
		m.d.Fail(f.line, m.Where, "unknown field %q (want one of: %s)", f.key, strings.Join(keys, ", "))
		return
	}
}

// Require reports the first of keys that is missing or null.
func (m *Map) Require(keys ...string) {
	for _, k := range keys {
		if !m.Has(k) {
			m.Fail("", "missing field %q", k)
			return
		}
	}
}

// Has says whether key is present with a non-null value.
func (m *Map) Has(key string) bool {
	f := m.find(key)
	return f != nil && f.val != nil
}

// Node returns the value of key, or nil when absent or null.
func (m *Map) Node(key string) *yaml.Node {
	if m.d.err != nil {
		return nil
	}
	if f := m.find(key); f != nil {
		f.used = true
		return f.val
	}
	return nil
}

// LineOf is the line of key's value, or of the mapping when key is absent.
func (m *Map) LineOf(key string) int {
	if f := m.find(key); f != nil {
		if f.val != nil {
			return f.val.Line
		}
		return f.line
	}
	return m.Line
}

// Fail records a problem at key's line (the mapping's line if key is ""
// or absent).
func (m *Map) Fail(key, format string, args ...any) {
	m.d.Fail(m.LineOf(key), m.Where, format, args...)
}

func (m *Map) scalar(key, want string) (string, *yaml.Node) {
	n := m.Node(key)
	if n == nil {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		m.d.Fail(n.Line, m.Where, "%s: want %s, got %s", key, want, kindName(n))
		return "", nil
	}
	if !m.d.spend(1, n.Line) {
		return "", nil
	}
	return n.Value, n
}

// Str reads a string field ("" when absent).
func (m *Map) Str(key string) string {
	s, _ := m.scalar(key, "a string")
	return s
}

// Bool reads a true/false field (false when absent); any other value is
// an error naming the field.
func (m *Map) Bool(key string) bool {
	s, n := m.scalar(key, "true or false")
	if n == nil {
		return false
	}
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	m.d.Fail(n.Line, m.Where, "%s: want true or false, got %q", key, s)
	return false
}

// Int reads an integer field (0 when absent). Integral values written
// with a fraction or an exponent (1e9) are accepted.
func (m *Map) Int(key string) int64 {
	s, n := m.scalar(key, "an integer")
	if n == nil {
		return 0
	}
	v, err := ParseInt(s)
	if err != nil {
		m.d.Fail(n.Line, m.Where, "%s: %v", key, err)
	}
	return v
}

// Float reads a finite number field (0 when absent).
func (m *Map) Float(key string) float64 {
	s, n := m.scalar(key, "a number")
	if n == nil {
		return 0
	}
	v, err := ParseFloat(s)
	if err != nil {
		m.d.Fail(n.Line, m.Where, "%s: %v", key, err)
	}
	return v
}

// Scaled reads a decimal number field and multiplies it by 10^pow10,
// rounding once: "12.5" with pow10 6 reads as exactly 12500000.
func (m *Map) Scaled(key string, pow10 int) float64 {
	s, n := m.scalar(key, "a number")
	if n == nil {
		return 0
	}
	v, err := ParseScaled(s, pow10)
	if err != nil {
		m.d.Fail(n.Line, m.Where, "%s: %v", key, err)
	}
	return v
}

// Strs reads a list of strings (nil when absent or empty).
func (m *Map) Strs(key string) []string {
	n := m.Node(key)
	if n == nil {
		return nil
	}
	items := m.d.Seq(n, m.Where, key)
	if len(items) == 0 {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		it = m.d.resolve(it)
		if m.d.err != nil {
			return nil
		}
		if it == nil || it.Kind != yaml.ScalarNode || isNull(it) {
			line := n.Line
			what := "an empty value"
			if it != nil {
				line, what = it.Line, kindName(it)
			}
			m.d.Fail(line, m.Where, "%s: want a list of strings, got %s in it", key, what)
			return nil
		}
		out = append(out, it.Value)
	}
	return out
}

// Seq reads a list field (nil when absent).
func (m *Map) Seq(key string) []*yaml.Node {
	n := m.Node(key)
	if n == nil {
		return nil
	}
	return m.d.Seq(n, m.Where, key)
}

// ParseInt reads a decimal integer; integral floats such as 1e9 or 2.0
// are accepted too.
func ParseInt(s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.ContainsAny(s, "xXpP_") {
		return 0, fmt.Errorf("want an integer, got %q", s)
	}
	if f != math.Trunc(f) {
		return 0, fmt.Errorf("want a whole number, got %s", s)
	}
	if f >= 1<<63 || f < -(1<<63) {
		return 0, fmt.Errorf("%s is out of range", s)
	}
	return int64(f), nil
}

// ParseFloat reads a finite decimal number.
func ParseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.ContainsAny(s, "xXpP_") {
		return 0, fmt.Errorf("want a finite number, got %q", s)
	}
	return f, nil
}

// ParseScaled reads a decimal number and multiplies it by 10^pow10 with a
// single rounding, by moving the decimal exponent.
func ParseScaled(s string, pow10 int) (float64, error) {
	bad := fmt.Errorf("want a decimal number, got %q", s)
	if s == "" {
		return 0, bad
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, bad
		}
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 1e6 || e < -1e6 {
			return 0, bad
		}
		exp = e
	}
	if _, err := strconv.ParseFloat(mant, 64); err != nil {
		return 0, bad
	}
	f, err := strconv.ParseFloat(mant+"e"+strconv.Itoa(exp+pow10), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%s is out of range", s)
	}
	return f, nil
}
