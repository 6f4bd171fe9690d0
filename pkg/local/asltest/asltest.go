// Package asltest checks Amazon States Language files with the reference validators,
// @wmfs/statelint and asl-validator, pinned in the repository's package.json.
package asltest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Validate runs statelint and asl-validator on the ASL files at paths (each tool once, over all
// of them: a Node start costs more than a file) and fails t with their output if either
// rejects one. Each file must be complete ASL: substitute ${…} placeholders first. The tools come from node_modules/.bin of the module root (the
// nearest parent of the working directory with a go.mod); without them the test is skipped
// with the command that installs them.
func Validate(t testing.TB, paths ...string) {
	t.Helper()
	bin, err := toolDir()
	if err != nil {
		t.Fatalf("asltest: %v", err)
	}
	if len(paths) == 0 {
		t.Fatal("asltest: no files to validate")
	}
	var aslArgs []string
	for _, p := range paths {
		aslArgs = append(aslArgs, "--json-path", p)
	}
	tools := []struct {
		name string
		args []string
	}{
		{"statelint", paths},
		{"asl-validator", aslArgs},
	}
	for _, tool := range tools {
		exe := filepath.Join(bin, tool.name)
		if _, err := os.Stat(exe); err != nil {
			t.Skipf("SKIP: %s is not installed at %s; run `npm ci` in the repository root to install the pinned ASL validators", tool.name, exe)
		}
		if _, err := exec.LookPath("node"); err != nil {
			t.Skipf("SKIP: node is not on PATH, so %s cannot run; install Node.js (apt-get install nodejs npm) and run `npm ci`", tool.name)
		}
		cmd := exec.Command(exe, tool.args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("%s rejects %v (%v):\n%s", tool.name, paths, err, out.String())
		}
	}
}

// ValidateDefinition validates a definition held in memory, such as the one
// template.Template.Definition returns with its placeholders substituted; name labels it in
// failures.
func ValidateDefinition(t testing.TB, name string, definition []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := os.WriteFile(path, definition, 0o644); err != nil {
		t.Fatalf("asltest: write %s: %v", name, err)
	}
	Validate(t, path)
}

// toolDir finds node_modules/.bin at the module root above the working directory.
func toolDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "node_modules", ".bin"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod in %s or above it", wd)
		}
		dir = parent
	}
}
