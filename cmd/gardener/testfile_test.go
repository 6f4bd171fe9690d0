package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// teamFile is a test as a team wrote it by hand, in a valid layout no command writes: compact
// keys in the author's order, bare css locators, no project, version or status.
const teamFile = `{"id":"team-signin",
 "name":"Team sign-in",
 "steps":[
  {"url":"/login","kind":"goto"},
  {"locator":"#username","kind":"fill","value":"demo"},
  {"kind":"fill","value":"demo123","locator":"#password"},
  {"kind":"click","locator":"main > form button"}
 ]}
`

// TestWritesKeepTheTeamsLayout: push records the version in a hand-written file by adding that
// one line; after a one-step repair pull changes that step (in the file's own spelling) and the
// version line, nothing else; gardener fmt writes the canonical layout only when asked, and
// --check says which files are not in it. No browser: well under a second.
func TestWritesKeepTheTeamsLayout(t *testing.T) {
	t.Parallel()
	dir, state := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "signin.json")
	noErr(t, os.WriteFile(file, []byte(teamFile), 0o644))
	if rep, code, stderr := syncCLI(t, "push", dir, "--project", "mine", "--state", state); code != exitOK || rep.Counts["created"] != 1 {
		t.Fatalf("push: exit %d %+v %s", code, rep, stderr)
	}
	pushed, err := os.ReadFile(file)
	noErr(t, err)
	if removed, added := changedLines(teamFile, string(pushed)); len(removed) != 0 || !slices.Equal(added, []string{` "version":1,`}) {
		t.Errorf("push changed %q, added %q; want only the version line added:\n%s", removed, added, pushed)
	}

	store, err := embedded.Open(filepath.Join(state, "gardener.db"))
	noErr(t, err)
	repairInStore(t, store, "team-signin", 2, "#pass-word")
	noErr(t, store.Close())
	if rep, code, _ := syncCLI(t, "pull", dir, "--project", "mine", "--state", state); code != exitOK || outcomes(rep)["team-signin"] != "updated" {
		t.Fatalf("pull: exit %d %+v", code, rep)
	}
	pulled, err := os.ReadFile(file)
	noErr(t, err)
	removed, added := changedLines(string(pushed), string(pulled))
	wantRemoved := []string{` "version":1,`, `  {"kind":"fill","value":"demo123","locator":"#password"},`}
	wantAdded := []string{` "version":2,`, `  {"kind":"fill","value":"demo123","locator":"#pass-word"},`}
	if !slices.Equal(removed, wantRemoved) || !slices.Equal(added, wantAdded) {
		t.Errorf("the repair's pull removed %q and added %q; want %q and %q:\n%s", removed, added, wantRemoved, wantAdded, pulled)
	}

	var out, errb bytes.Buffer
	if code := dispatch([]string{"fmt", "--check", dir}, nil, &out, &errb); code != exitNegative || strings.TrimSpace(out.String()) != file {
		t.Errorf("fmt --check: exit %d, listed %q, %s", code, out.String(), errb.String())
	}
	if got, _ := os.ReadFile(file); !bytes.Equal(got, pulled) {
		t.Error("fmt --check wrote the file")
	}
	out.Reset()
	if code := dispatch([]string{"fmt", file}, nil, &out, &errb); code != exitOK || !strings.Contains(out.String(), "formatted "+file) {
		t.Errorf("fmt: exit %d %s %s", code, out.String(), errb.String())
	}
	formatted, _ := os.ReadFile(file)
	test, err := gardener.DecodeTest(pulled)
	noErr(t, err)
	if want, _ := gardener.FormatTest(test); !bytes.Equal(formatted, want) {
		t.Errorf("fmt wrote:\n%s\nwant the canonical layout:\n%s", formatted, want)
	}
	if code := dispatch([]string{"fmt", "--check", file}, nil, &out, &errb); code != exitOK {
		t.Errorf("fmt --check of a canonical file: exit %d", code)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	noErr(t, os.WriteFile(bad, []byte(`{"id":"x"}`), 0o644))
	errb.Reset()
	if code := dispatch([]string{"fmt", file, bad}, nil, &out, &errb); code != exitBadInput || !strings.Contains(errb.String(), bad) {
		t.Errorf("fmt of a file that is not a test: exit %d %s", code, errb.String())
	}
}

// changedLines is the lines only a has and the lines only b has, in order: what a line diff of
// the two shows.
func changedLines(a, b string) (removed, added []string) {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			removed = append(removed, x[i])
			i++
		default:
			added = append(added, y[j])
			j++
		}
	}
	return append(removed, x[i:]...), append(added, y[j:]...)
}
