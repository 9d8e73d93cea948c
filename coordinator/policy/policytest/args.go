package policytest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cockroachdb/datadriven"
	"github.com/racklab/racklab/internal/units"
)

// args reads the key=value arguments of one command or body line. It
// remembers the first error and which keys were read, so that a misspelt
// key is reported instead of silently ignored.
type args struct {
	what string // "topology", "job j stage 1", ...
	vals map[string]string
	used map[string]bool
	bare []string // arguments without a value, in order
	err  error
}

func newArgs(what string, cmdArgs []datadriven.CmdArg) *args {
	a := &args{what: what, vals: map[string]string{}, used: map[string]bool{}}
	for _, c := range cmdArgs {
		if len(c.Vals) == 0 {
			a.bare = append(a.bare, c.Key)
			continue
		}
		if _, dup := a.vals[c.Key]; dup {
			a.fail("argument %q is given twice", c.Key)
		}
		// key=(a, b) and key=a,b mean the same list
		a.vals[c.Key] = strings.Join(c.Vals, ",")
	}
	return a
}

func (a *args) fail(format string, v ...any) {
	if a.err == nil {
		a.err = fmt.Errorf("%s: %s", a.what, fmt.Sprintf(format, v...))
	}
}

func (a *args) has(key string) bool {
	_, ok := a.vals[key]
	return ok
}

func (a *args) raw(key string) (string, bool) {
	v, ok := a.vals[key]
	a.used[key] = true
	return v, ok
}

func (a *args) str(key, def string) string {
	if v, ok := a.raw(key); ok {
		return v
	}
	return def
}

func (a *args) required(key string) string {
	v, ok := a.raw(key)
	if !ok || v == "" {
		a.fail("missing %s=", key)
	}
	return v
}

func (a *args) float(key string, def float64) float64 {
	v, ok := a.raw(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		a.fail("%s=%q is not a number", key, v)
	}
	return f
}

func (a *args) int(key string, def int) int {
	v, ok := a.raw(key)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		a.fail("%s=%q is not a whole number", key, v)
	}
	return n
}

func (a *args) bytes(key string, def int64) int64 {
	v, ok := a.raw(key)
	if !ok {
		return def
	}
	n, err := units.ParseBytes(v)
	if err != nil {
		a.fail("%s: %v", key, err)
	}
	return n
}

func (a *args) list(key string) []string {
	v, ok := a.raw(key)
	if !ok || v == "" {
		return nil
	}
	parts := strings.Split(v, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// done reports the first error, or an argument nobody read.
func (a *args) done() error {
	if a.err != nil {
		return a.err
	}
	var unknown []string
	for k := range a.vals {
		if !a.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("%s: unknown argument %s", a.what, strings.Join(unknown, ", "))
	}
	if len(a.bare) > 0 {
		return fmt.Errorf("%s: argument %q has no value (want key=value)", a.what, a.bare[0])
	}
	return nil
}
