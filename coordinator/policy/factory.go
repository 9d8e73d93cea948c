package policy

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/racklab/racklab/coordinator/engine"
)

// Factory builds one policy from a campaign's args. Define makes one from
// the policy's Config type: its exported fields, each with a yaml tag,
// are the args, and a default Config gives the values of the args a
// campaign leaves out.
type Factory struct {
	name  string
	args  []Arg
	build func(args map[string]any) (engine.Policy, error)
	// err is a mistake in the declaration itself (an untagged or
	// unsupported field); Build reports it, and the registry's test
	// builds every policy so that it cannot ship.
	err error
}

// Arg describes one argument a policy takes.
type Arg struct {
	Name    string // snake_case, as a campaign writes it
	Type    string // number, integer, boolean, string or duration
	Default any
}

// Validator is implemented by a Config that checks its values once the
// args are in (say, a delay that may not be negative).
type Validator interface {
	Validate() error
}

// ArgError is a problem with one arg of a policy: unknown, or of the
// wrong type or value. Callers that know where each arg was written (a
// campaign file) use Arg to point at its line.
type ArgError struct {
	Policy string
	Arg    string
	// Known lists the policy's args when Arg is not one of them.
	Known   []string
	Unknown bool
	Msg     string
}

func (e *ArgError) Error() string {
	if e.Unknown {
		if len(e.Known) == 0 {
			return fmt.Sprintf("policy %s: unknown arg %q (%s takes no args)", e.Policy, e.Arg, e.Policy)
		}
		return fmt.Sprintf("policy %s: unknown arg %q (known: %s)", e.Policy, e.Arg, strings.Join(e.Known, ", "))
	}
	return fmt.Sprintf("policy %s: arg %s: %s", e.Policy, e.Arg, e.Msg)
}

// Define declares a policy: its name, its Config with every field's
// defaults, and its constructor. Config fields take their arg names from
// their yaml tags (`yaml:"node_threshold"`; `yaml:"-"` leaves a field
// out) and may be numbers, integers, booleans, strings or time.Duration
// (written as "30s"). A Config that implements Validator is checked after
// decoding.
func Define[C any, P engine.Policy](name string, defaults C, build func(C) P) Factory {
	return DefineLoading(name, defaults, func(c C) (P, error) { return build(c), nil })
}

// DefineLoading declares a policy whose constructor can fail: one that
// reads a file its args name (replay reads a recorded run). Its error
// is the build's, prefixed with the policy's name.
func DefineLoading[C any, P engine.Policy](name string, defaults C, build func(C) (P, error)) Factory {
	f := Factory{name: name}
	t := reflect.TypeOf(defaults)
	if t == nil || t.Kind() != reflect.Struct {
		f.err = fmt.Errorf("policy %s: its config must be a struct, not %v", name, t)
		return f
	}
	var fields []int // index in t of each arg
	dv := reflect.ValueOf(defaults)
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if tag == "-" {
			continue
		}
		if tag == "" {
			f.err = fmt.Errorf("policy %s: config field %s has no yaml tag naming its arg", name, sf.Name)
			return f
		}
		kind := argType(sf.Type)
		if kind == "" {
			f.err = fmt.Errorf("policy %s: config field %s has type %v, which args cannot hold", name, sf.Name, sf.Type)
			return f
		}
		f.args = append(f.args, Arg{Name: tag, Type: kind, Default: dv.Field(i).Interface()})
		fields = append(fields, i)
	}
	sorted := append([]Arg(nil), f.args...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].Name < sorted[b].Name })
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Name == sorted[i-1].Name {
			f.err = fmt.Errorf("policy %s: two config fields are tagged %q", name, sorted[i].Name)
			return f
		}
	}
	f.build = func(args map[string]any) (engine.Policy, error) {
		cfg := defaults
		v := reflect.ValueOf(&cfg).Elem()
		// sorted keys: the first problem reported is the same every time
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			i := f.argIndex(k)
			if i < 0 {
				return nil, &ArgError{Policy: name, Arg: k, Unknown: true, Known: f.ArgNames()}
			}
			if msg := setArg(v.Field(fields[i]), f.args[i].Type, args[k]); msg != "" {
				return nil, &ArgError{Policy: name, Arg: k, Msg: msg}
			}
		}
		if val, ok := any(cfg).(Validator); ok {
			if err := val.Validate(); err != nil {
				return nil, fmt.Errorf("policy %s: %w", name, err)
			}
		}
		p, err := build(cfg)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
		return p, nil
	}
	return f
}

// Name is the policy's name.
func (f Factory) Name() string { return f.name }

// Args lists the policy's args in the order of its Config's fields.
func (f Factory) Args() []Arg { return append([]Arg(nil), f.args...) }

// ArgNames lists the names of the policy's args, sorted.
func (f Factory) ArgNames() []string {
	names := make([]string, len(f.args))
	for i, a := range f.args {
		names[i] = a.Name
	}
	sort.Strings(names)
	return names
}

// Build decodes args over the defaults and constructs the policy.
func (f Factory) Build(args map[string]any) (engine.Policy, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.build(args)
}

func (f Factory) argIndex(name string) int {
	for i, a := range f.args {
		if a.Name == name {
			return i
		}
	}
	return -1
}

var durationType = reflect.TypeOf(time.Duration(0))

// argType names the kind of value a field holds, or "" when args cannot
// set it.
func argType(t reflect.Type) string {
	if t == durationType {
		return "duration"
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	}
	return ""
}

// setArg stores an arg's value into a Config field, or says what is
// wrong with it. Values are what a YAML or JSON decoder makes of a
// scalar: int, float64, bool, string (other Go integer and float types
// are accepted too, for callers that build args in code).
func setArg(field reflect.Value, kind string, val any) string {
	switch kind {
	case "duration":
		s, ok := val.(string)
		if !ok {
			return fmt.Sprintf("want a duration such as 30s, got %s", describe(val))
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Sprintf("want a duration such as 30s, got %q", s)
		}
		field.SetInt(int64(d))
	case "number":
		x, ok := toFloat(val)
		if !ok {
			return fmt.Sprintf("want a number, got %s", describe(val))
		}
		if field.OverflowFloat(x) {
			return fmt.Sprintf("%g is out of range", x)
		}
		field.SetFloat(x)
	case "integer":
		x, ok := toFloat(val)
		if !ok {
			return fmt.Sprintf("want an integer, got %s", describe(val))
		}
		if x != math.Trunc(x) {
			return fmt.Sprintf("want a whole number, got %s", describe(val))
		}
		if i, exact := toInt(val); exact {
			return setInteger(field, i, val)
		}
		if x >= 1<<63 || x < -(1<<63) {
			return fmt.Sprintf("%s is out of range", describe(val))
		}
		return setInteger(field, int64(x), val)
	case "boolean":
		b, ok := val.(bool)
		if !ok {
			return fmt.Sprintf("want true or false, got %s", describe(val))
		}
		field.SetBool(b)
	case "string":
		s, ok := val.(string)
		if !ok {
			return fmt.Sprintf("want a string, got %s", describe(val))
		}
		field.SetString(s)
	}
	return ""
}

func setInteger(field reflect.Value, i int64, val any) string {
	switch field.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if i < 0 {
			return fmt.Sprintf("want a non-negative integer, got %s", describe(val))
		}
		if field.OverflowUint(uint64(i)) {
			return fmt.Sprintf("%s is out of range", describe(val))
		}
		field.SetUint(uint64(i))
	default:
		if field.OverflowInt(i) {
			return fmt.Sprintf("%s is out of range", describe(val))
		}
		field.SetInt(i)
	}
	return ""
}

// toFloat reads a finite number of any Go numeric type.
func toFloat(val any) (float64, bool) {
	var x float64
	switch v := reflect.ValueOf(val); v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x = float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x = float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		x = v.Float()
	default:
		return 0, false
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, false
	}
	return x, true
}

// toInt reads a Go integer exactly (a float64 cannot hold every int64).
func toInt(val any) (int64, bool) {
	switch v := reflect.ValueOf(val); v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.Uint() <= math.MaxInt64 {
			return int64(v.Uint()), true
		}
	}
	return 0, false
}

// describe shows a value as the campaign wrote it.
func describe(val any) string {
	switch v := val.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("%q", v)
	case bool:
		return fmt.Sprint(v)
	}
	switch reflect.ValueOf(val).Kind() {
	case reflect.Map, reflect.Struct:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return fmt.Sprint(val)
}
