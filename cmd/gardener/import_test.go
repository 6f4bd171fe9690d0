package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

const recordings = "../../tests/recordings"

// TestImportFormats: a Recorder recording imports to one test on stdout, a Selenium IDE project
// to one file per test in -o DIR, each named after its test; the format read and the notes are
// on stderr.
func TestImportFormats(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"import", filepath.Join(recordings, "recorder/demoapp/preferences.json")}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	test, err := gardener.DecodeTest(out.Bytes())
	if err != nil || test.ID != "preferences" || test.Viewport.IsZero() || !slices.ContainsFunc(test.Steps, func(s gardener.Step) bool { return s.Kind == gardener.Set }) {
		t.Errorf("stdout is not the imported test: %v\n%s", err, out.String())
	}
	if !strings.Contains(errOut.String(), "preferences.json: a Chrome DevTools Recorder recording") || !strings.Contains(errOut.String(), "step 17: scroll dropped") {
		t.Errorf("stderr does not say the format and the notes:\n%s", errOut.String())
	}

	dir := filepath.Join(t.TempDir(), "tests")
	out.Reset()
	errOut.Reset()
	if code := dispatch([]string{"import", "--project", "demo", "-o", dir, filepath.Join(recordings, "side/demoapp/shop.side")}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "shop.side: a Selenium IDE project") || !strings.Contains(errOut.String(), `test "Log in", command 10: click is commented out`) {
		t.Errorf("stderr:\n%s", errOut.String())
	}
	tests, err := gardener.DecodeTestDir(os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tt := range tests {
		ids = append(ids, tt.ID)
		if tt.ProjectID != "demo" {
			t.Errorf("%s: project %q", tt.ID, tt.ProjectID)
		}
	}
	if want := []string{"log-in", "save-preferences", "search-the-catalogue"}; !slices.Equal(ids, want) {
		t.Errorf("wrote %v, want %v", ids, want)
	}
	if !strings.Contains(out.String(), "imported save-preferences: 22 steps to "+filepath.Join(dir, "save-preferences.json")) {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// TestImportRefusals: several tests need a directory and take no --id; a refused command names
// its test, its number and the reason, and nothing is written.
func TestImportRefusals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.json")
	noErr(t, os.WriteFile(file, []byte("{}"), 0o644))
	side := filepath.Join(recordings, "side/demoapp/shop.side")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", side}, "holds 3 tests: give -o DIR"},
		{[]string{"import", "--id", "x", "-o", dir, side}, "--id names one test"},
		{[]string{"import", "-o", file, side}, "is a file, and the recording holds 3 tests"},
		{[]string{"import", "-o", filepath.Join(dir, "out"), filepath.Join(recordings, "refused/project.side")}, `test "Scripted checkout", command 2 (runScript): a test runs no script of its own`},
		{[]string{"import", "-o", filepath.Join(dir, "out"), filepath.Join(recordings, "refused/steps.json")}, "step 2 (waitForExpression): "},
	} {
		var out, errOut bytes.Buffer
		if code := dispatch(c.args, nil, &out, &errOut); code != exitBadInput {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: stderr does not say %q:\n%s", c.args, c.want, errOut.String())
		}
		if out.Len() != 0 {
			t.Errorf("%v: stdout %q", c.args, out.String())
		}
	}
	entries, err := os.ReadDir(dir)
	noErr(t, err)
	if len(entries) != 1 {
		t.Errorf("refused imports wrote into %s: %v", dir, entries)
	}
}
