package yamlfile

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestScaledRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vals := []float64{0, 1, 1.25e9, 125e6, 4e9, 1e-300, 5e-324, math.MaxFloat64 / 1e10, 3.3333333333333335, 123456789.123}
	for i := 0; i < 20000; i++ {
		vals = append(vals, rng.Float64()*math.Pow(10, float64(rng.Intn(40)-10)))
		vals = append(vals, math.Float64frombits(rng.Uint64()&^(1<<63)))
	}
	for _, v := range vals {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			continue
		}
		for _, p := range []int{0, 6, 9, -3} {
			s := FormatScaled(v, p)
			got, err := ParseScaled(s, p)
			if err != nil && v*math.Pow(10, -float64(p)) < 1e300 {
				t.Fatalf("ParseScaled(%q, %d): %v", s, p, err)
			}
			if err == nil && got != v {
				t.Fatalf("FormatScaled(%v, %d) = %q reads back as %v", v, p, s, got)
			}
		}
	}
	if s := FormatScaled(1.25e9, 9); s != "1.25" {
		t.Errorf("FormatScaled(1.25e9, 9) = %q", s)
	}
	if s := FormatScaled(4e9, 6); s != "4000" {
		t.Errorf("FormatScaled(4e9, 6) = %q", s)
	}
	if s := FormatScaled(1e3, 6); s != "0.001" {
		t.Errorf("FormatScaled(1e3, 6) = %q", s)
	}
}

func TestParseScaledRejects(t *testing.T) {
	for _, s := range []string{"", "abc", "1e", "--1", "0x10", "1e99999999", "inf", "NaN", "1,5", "1e400"} {
		if v, err := ParseScaled(s, 6); err == nil {
			t.Errorf("ParseScaled(%q) = %v, want an error", s, v)
		}
	}
}

func TestParseInt(t *testing.T) {
	for s, want := range map[string]int64{"12": 12, "-3": -3, "1e9": 1e9, "2.0": 2, "+7": 7} {
		if v, err := ParseInt(s); err != nil || v != want {
			t.Errorf("ParseInt(%q) = %v, %v; want %d", s, v, err, want)
		}
	}
	for _, s := range []string{"1.5", "x", "1e30", "0x10", ".inf", "1_000"} {
		if v, err := ParseInt(s); err == nil {
			t.Errorf("ParseInt(%q) = %v, want an error", s, v)
		}
	}
}

func TestStrRoundTrip(t *testing.T) {
	for _, s := range []string{"job0", "", "123", "true", "null", "~", "@job7", "r0h0:hdd", "- x", "a: b", "#c", "tab\there",
		"new\nline", "ünïcode", "quote\"s", `back\slash`, "\x00\x1b", "\u2028", "[x]", "{y}", "a, b", " lead", "trail ", "Yes", "\ufeffbom", "'", "!tag", "&a", "*a", "%x", "|", ">"} {
		var b strings.Builder
		e := NewEmitter(&b)
		e.Raw("k: ")
		e.Str(s)
		e.Raw("\nl: [")
		e.Str(s)
		e.Raw("]\n")
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		d, top, err := Parse("t.yaml", []byte(b.String()))
		if err != nil {
			t.Fatalf("%q: %v\n%s", s, err, b.String())
		}
		m := d.Map(top, "")
		if got := m.Str("k"); got != s {
			t.Errorf("%q reads back as %q from %s", s, got, b.String())
		}
		if got := m.Strs("l"); len(got) != 1 || got[0] != s {
			t.Errorf("[%q] reads back as %q from %s", s, got, b.String())
		}
		if d.Err() != nil {
			t.Errorf("%q: %v", s, d.Err())
		}
	}
	e := NewEmitter(&strings.Builder{})
	e.Str("\xff")
	if e.Flush() == nil {
		t.Error("invalid UTF-8 was written")
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "f.yaml: file is empty"},
		{"# nothing\n", "f.yaml: file is empty"},
		{"- a\n", "f.yaml:1: the top level must be a mapping"},
		{"a: 1\nb: [\n", "f.yaml:2: YAML syntax"},
		{"a: 1\na: 2\n", `f.yaml:2: field "a" given twice (first at line 1)`},
		{"a: 1\nzz: 2\n", `f.yaml:2: unknown field "zz"`},
		{"a: x\n", `f.yaml:1: a: want an integer, got "x"`},
		{"a: [1]\n", `f.yaml:1: a: want an integer, got a list`},
		{"b: &x [*x]\n", "f.yaml:1"},
		{"a: &x {<<: *x}\n", "f.yaml:1"},
		{"a: 1\nb: [\"r\xff0\"]\n", "f.yaml:2: column 7: byte 0xff is not UTF-8 text"},
		{"a: 1\n# caf\xe9\n", "f.yaml:2: column 6: byte 0xe9 is not UTF-8 text"},
	} {
		d, top, err := Parse("f.yaml", []byte(tc.src))
		if err == nil {
			m := d.Map(top, "")
			m.Known("a", "b")
			m.Int("a")
			m.Strs("b")
			err = d.Err()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestAliasBomb(t *testing.T) {
	src := `a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
`
	d, top, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range d.Seq(n, "", "x") {
			c = d.resolve(c)
			if c != nil && c.Kind == yaml.SequenceNode {
				walk(c)
			}
		}
	}
	walk(d.Map(top, "").Node("g"))
	if d.Err() == nil || !strings.Contains(d.Err().Error(), "too large") {
		t.Errorf("alias bomb: err = %v", d.Err())
	}
}

func TestMerge(t *testing.T) {
	src := "base: &b {a: 1, c: 3}\nx: {<<: *b, a: 2}\n"
	d, top, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := d.Map(d.Map(top, "").Node("x"), "x")
	if a, c := m.Int("a"), m.Int("c"); a != 2 || c != 3 || d.Err() != nil {
		t.Errorf("merge: a=%d c=%d err=%v", a, c, d.Err())
	}
}

func TestKeysInFileOrderWithMergedLast(t *testing.T) {
	src := "base: &b {z: 1, a: 9}\nx: {<<: *b, m: 2, a: 3}\n"
	d, top, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m := d.Map(d.Map(top, "").Node("x"), "x")
	if got := strings.Join(m.Keys(), ","); got != "m,a,z" {
		t.Errorf("keys %s, want m,a,z", got)
	}
}

// A mapping of many keys is read in time linear in its size: each key
// was looked up by a scan of the keys before it, and a 1.6 MB file of
// 150,000 keys took 20 s to say its first key was unknown.
func TestManyKeysInLinearTime(t *testing.T) {
	const n = 150000
	var b strings.Builder
	b.WriteString("base: &b {k0: merged, extra: merged}\n<<: *b\n")
	for i := 0; i < n; i++ {
		b.WriteString("k" + strconv.Itoa(i) + ": 1\n")
	}
	start := time.Now()
	d, top, err := Parse("big.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	m := d.Map(top, "")
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("reading a mapping of %d keys took %v", n, elapsed)
	}
	// the index finds keys as the scan did: the mapping's own over merged ones
	if got, want := len(m.Keys()), n+2; got != want {
		t.Errorf("%d keys, want %d", got, want)
	}
	if m.Str("k0") != "1" || m.Str("extra") != "merged" || m.Str("k149999") != "1" || m.Has("k150000") {
		t.Errorf("lookups: k0=%q extra=%q", m.Str("k0"), m.Str("extra"))
	}
	m.Known("base")
	if err := d.Err(); err == nil || !strings.HasPrefix(err.Error(), `big.yaml:3: unknown field "k0"`) {
		t.Errorf("unknown field: %v", err)
	}

	b.WriteString("k17: 2\n")
	d, top, _ = Parse("dup.yaml", []byte(b.String()))
	d.Map(top, "")
	if err := d.Err(); err == nil || !strings.Contains(err.Error(), `field "k17" given twice (first at line 20)`) {
		t.Errorf("duplicate key: %v", err)
	}
}
