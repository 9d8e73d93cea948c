package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The generated workloads kept in the repository are what the command in
// their header makes today: a change to a generator shows here, and the
// files are made again rather than left stale.
func TestExamplesAreGenerated(t *testing.T) {
	for _, dir := range []string{"../examples/corral-w1-local"} {
		header, err := os.ReadFile(filepath.Join(dir, "workload.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		args := commandOf(string(header))
		if len(args) == 0 {
			t.Fatalf("%s/workload.yaml: no '#   datagen ...' line says how it was made", dir)
		}
		out := t.TempDir()
		for i, a := range args {
			if strings.HasSuffix(a, ".yaml") {
				args[i] = filepath.Join(out, a)
			}
		}
		if o, err := run(t, args...); err != nil {
			t.Fatalf("datagen %s: %v\n%s", strings.Join(args, " "), err, o)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
		if len(files) == 0 {
			t.Fatalf("datagen %s wrote nothing", strings.Join(args, " "))
		}
		for _, made := range files {
			kept := filepath.Join(dir, filepath.Base(made))
			want, err := os.ReadFile(made)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(kept)
			if err != nil {
				t.Fatal(err)
			}
			if uncommented(string(got)) != uncommented(string(want)) {
				t.Errorf("%s is not what its command makes today: run it again (%s)", kept, strings.Join(args, " "))
			}
		}
	}
}

// commandOf reads the datagen command from a file's comment header: the
// line "#   datagen ..." and its continuation lines (ending in \).
func commandOf(header string) []string {
	var cmd []string
	on := false
	for _, line := range strings.Split(header, "\n") {
		text, ok := strings.CutPrefix(line, "#")
		if !ok {
			break
		}
		f := strings.Fields(text)
		if !on && (len(f) == 0 || f[0] != "datagen") {
			continue
		}
		if !on {
			f = f[1:]
		}
		on = true
		more := len(f) > 0 && f[len(f)-1] == `\`
		if more {
			f = f[:len(f)-1]
		}
		cmd = append(cmd, f...)
		if !more {
			break
		}
	}
	return cmd
}

// uncommented is a file's text without its comment lines.
func uncommented(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "#") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}
