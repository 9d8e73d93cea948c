package lab

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Every racklab_* variable the worker role uses is either given a
// default (the role's defaults, the playbooks' group_vars), registered by
// a task, used only when defined, or checked by the role's first task:
// an inventory missing racklab_nats passed that check, installed the
// user, the binary and the secret, and only then failed on a template
// error a screen long.
func TestWorkerRoleChecksItsRequiredVariables(t *testing.T) {
	role := filepath.Join("..", "ansible", "roles", "worker")
	var used []byte
	for _, glob := range []string{"tasks/*.yml", "handlers/*.yml", "templates/*", "defaults/*.yml"} {
		paths, err := filepath.Glob(filepath.Join(role, glob))
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s/%s: %v (no files)", role, glob, err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			used = append(used, b...)
			used = append(used, '\n')
		}
	}
	defined := map[string]bool{}
	for _, p := range []string{filepath.Join(role, "defaults", "main.yml"), filepath.Join("..", "ansible", "group_vars", "all.yml")} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var vars map[string]any
		if err := yaml.Unmarshal(b, &vars); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for k := range vars {
			defined[k] = true
		}
	}
	for _, m := range regexp.MustCompile(`register:\s*(racklab_\w+)`).FindAllSubmatch(used, -1) {
		defined[string(m[1])] = true
	}
	for _, m := range regexp.MustCompile(`(racklab_\w+)\s*(?:is defined|\|\s*default\()`).FindAllSubmatch(used, -1) {
		defined[string(m[1])] = true // optional
	}

	// the role's check: its first task's assertions and message
	b, err := os.ReadFile(filepath.Join(role, "tasks", "main.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var tasks []struct {
		Assert struct {
			That    []string `yaml:"that"`
			FailMsg string   `yaml:"fail_msg"`
		} `yaml:"ansible.builtin.assert"`
	}
	if err := yaml.Unmarshal(b, &tasks); err != nil || len(tasks) == 0 {
		t.Fatalf("tasks/main.yml: %v", err)
	}
	check := tasks[0].Assert

	var missing []string
	for _, m := range regexp.MustCompile(`racklab_\w+`).FindAll(used, -1) {
		v := string(m)
		if defined[v] || slices.Contains(missing, v) {
			continue
		}
		if !slices.Contains(check.That, v+" is defined") || !strings.Contains(check.FailMsg, v) {
			missing = append(missing, v)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the worker role uses %v with no default and its first task does not check them (that: ... is defined, named in fail_msg)", missing)
	}
}
