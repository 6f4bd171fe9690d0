package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ownedtemp"
	"github.com/driftgardener/gardener/pkg/workspace"
)

// readTest reads a test file; a test that names no project is in project localProject.
func readTest(path string) (gardener.Test, error) {
	b, err := readInput(path, "test file")
	if err != nil {
		return gardener.Test{}, err
	}
	t, err := gardener.DecodeTest(b)
	if err != nil {
		return gardener.Test{}, fmt.Errorf("%s: %w", path, err)
	}
	if t.ProjectID == "" {
		t.ProjectID = localProject
	}
	return t, nil
}

// writeTest writes a test file in the canonical layout (gardener.FormatTest), keeping the
// permissions of a file it replaces: for a new file, or when the canonical layout is asked for.
func writeTest(path string, t gardener.Test) error {
	b, err := gardener.FormatTest(t)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeTestBytes(path, b)
}

// updateTestFile writes t into the test file at path, changing only what differs from the test
// the file holds (gardener.EditTestFile): the team's layout, locator spelling and key order stay,
// so the file's diff is the repair and the version line. A file that is not there, or not a
// test that can be edited in place, is written in the canonical layout.
func updateTestFile(path string, t gardener.Test) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return writeTest(path, t)
	}
	b, err := gardener.EditTestFile(old, t)
	if err != nil {
		return writeTest(path, t)
	}
	return writeTestBytes(path, b)
}

func writeTestBytes(path string, b []byte) error {
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	return writeFileAtomic(path, b, perm)
}

// writeFileAtomic replaces a file so that a crash at any point leaves the old content or the
// new, never half, and the new content is on disk when it returns: written to a temporary file
// in the same directory, flushed, renamed over the file, and the rename flushed with the
// directory.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	tmp, err := stageFile(path, data, perm)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp)
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer dir.Close()
	if err := dir.Sync(); err != nil {
		return fmt.Errorf("writing %s: flushing its directory: %w", path, err)
	}
	return nil
}

// stageFile writes data with perm to a new temporary file beside path, flushed to disk, and
// returns its name: renamed over path, it replaces the file at once. The name carries this
// process (ownedtemp), so the temporary files a crashed write left in the directory are
// removed first, and another live run's never are.
func stageFile(path string, data []byte, perm fs.FileMode) (string, error) {
	// A stale file that cannot be removed is no reason not to write.
	_, _ = ownedtemp.Sweep(filepath.Dir(path), stagePrefix, stageSuffix)
	tmp, err := os.CreateTemp(filepath.Dir(path), ownedtemp.Pattern(stagePrefix, stageSuffix))
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// stagePrefix and stageSuffix frame the name of a file being written beside a test file.
const stagePrefix, stageSuffix = ".gardener-", ".tmp"

// fileWrites is the state's record of test files being written back with the store's test
// (repair --write). An entry is the mark of a file when a write to it began, made before the
// store is written and removed once the file is; an entry found by the next sync is a write a
// crash cut short. The record is a JSON object keyed by test id, beside the store.
type fileWrites struct{ path string }

func fileWritesIn(stateDir string) fileWrites {
	return fileWrites{path: filepath.Join(stateDir, "file-writes.json")}
}

func (w fileWrites) load() (map[string]workspace.Mark, error) {
	marks := map[string]workspace.Mark{}
	b, err := os.ReadFile(w.path)
	if errors.Is(err, fs.ErrNotExist) {
		return marks, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &marks)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the record of file writes %s: %w", w.path, err)
	}
	return marks, nil
}

func (w fileWrites) save(marks map[string]workspace.Mark) error {
	b, err := json.MarshalIndent(marks, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(w.path, append(b, '\n'), 0o644)
}

// unfinished is the mark of test id's file when a write to it began and did not finish, or nil.
func (w fileWrites) unfinished(id string) (*workspace.Mark, error) {
	marks, err := w.load()
	if err != nil {
		return nil, err
	}
	m, ok := marks[id]
	if !ok {
		return nil, nil
	}
	return &m, nil
}

// begin records that test id's file, now with mark m, is about to be written.
func (w fileWrites) begin(id string, m workspace.Mark) error {
	marks, err := w.load()
	if err != nil {
		return err
	}
	marks[id] = m
	return w.save(marks)
}

// done removes the record of a write to test id's file.
func (w fileWrites) done(id string) error {
	marks, err := w.load()
	if err != nil {
		return err
	}
	if _, ok := marks[id]; !ok {
		return nil
	}
	delete(marks, id)
	return w.save(marks)
}

// syncTestFile syncs the test read from path into the store (see workspace.SyncTest). When a
// write of the store's test back to the file was cut short, it completes it, and it clears the
// record of that write either way: the sync has settled it.
func syncTestFile(ctx context.Context, ws *workspace.Service, writes fileWrites, path string, file gardener.Test, progress io.Writer) (workspace.Synced, error) {
	unfinished, err := writes.unfinished(file.ID)
	if err != nil {
		return workspace.Synced{}, err
	}
	synced, err := ws.SyncTest(ctx, file, unfinished)
	var moved *workspace.MovedError
	if errors.As(err, &moved) {
		return workspace.Synced{}, behindError(writes, path, file, moved.Version)
	}
	if err != nil {
		return workspace.Synced{}, err
	}
	if synced.Outcome == workspace.SyncBehind {
		if err := updateTestFile(path, synced.Test); err != nil {
			return workspace.Synced{}, err
		}
		fmt.Fprintf(progress, "state: the last write of %s was cut short; wrote version %d of %s there (the file still held version %d)\n", path, synced.Test.Version, file.ID, file.Version)
	}
	if unfinished != nil {
		if err := writes.done(file.ID); err != nil {
			return workspace.Synced{}, err
		}
	}
	return synced, nil
}

// behindError is why a test file made on an older version than the local state holds is not
// run or repaired: which version the file was taken as, which the state holds, and how to bring
// the file up to it. Saving the file would write its older steps over the state's (a repair).
func behindError(writes fileWrites, path string, file gardener.Test, current int) error {
	pull := fmt.Sprintf("gardener pull %s --project %s", filepath.Dir(path), file.ProjectID)
	if state := filepath.Dir(writes.path); state != defaultStateDir {
		pull += " --state " + state
	}
	return &staleFileError{fmt.Sprintf("%s %s, and test %s is at version %d in the local state (a repair or another edit changed it since): nothing was replayed, and the file's older steps were not written over it. %s. A repair with --write keeps its file up to date", path, copyOf(file, "is a copy of version %d"), file.ID, current, pullFirst(pull, current))}
}

// copyOf says which version a test file is a copy of: named as the caller words it, or, for a
// file that names none, version 1.
func copyOf(file gardener.Test, named string) string {
	if file.Version == 0 {
		return "names no version, so it is a copy of version 1 (what creating the test made)"
	}
	return fmt.Sprintf(named, file.Version)
}

// pullFirst is what a file behind its test's current version is told to do: the pull that
// writes that version into it, or keeps an edit of the person's.
func pullFirst(pull string, current int) string {
	return fmt.Sprintf("Run %q first: it writes version %d into this file, or, when the file holds an edit of yours, refuses and keeps it (then move the file aside, pull, and redo the edit on version %d)", pull, current, current)
}

// staleFileError is a test file behind the local state; the command refuses it (exit 1).
type staleFileError struct{ msg string }

func (e *staleFileError) Error() string { return e.msg }
