package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sparse makes a file of size bytes that takes no room on disk.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	noErr(t, err)
	noErr(t, f.Truncate(size))
	noErr(t, f.Close())
}

// TestInputFilesAreRegularAndBounded: every command that reads a file refuses, at once and with
// exit 2, a file over the 16 MiB limit (saying the limit), a device that never ends (/dev/zero),
// a FIFO (without waiting for a writer) and a directory, naming the file.
func TestInputFilesAreRegularAndBounded(t *testing.T) {
	dir := t.TempDir()
	over := filepath.Join(dir, "over.json")
	sparse(t, over, 17<<20)
	justOver := filepath.Join(dir, "just-over.json")
	sparse(t, justOver, 16<<20+1)
	atLimit := filepath.Join(dir, "at-limit.json")
	sparse(t, atLimit, 16<<20)
	fifo := filepath.Join(dir, "fifo.json")
	noErr(t, syscall.Mkfifo(fifo, 0o600))
	sub := filepath.Join(dir, "dir.json")
	noErr(t, os.Mkdir(sub, 0o755))

	inputs := []struct {
		name, path, want string
		// bounded: the refusal is the size limit's, which locate (reading line by line) has not.
		bounded bool
	}{
		{"over the limit", over, ": 17 MiB is over the 16 MiB limit for a ", true},
		{"one byte over the limit", justOver, ": 16777217 bytes is over the 16 MiB limit for a ", true},
		{"a device that never ends", "/dev/zero", " is a device, not a regular file", false},
		{"a FIFO", fifo, " is a FIFO, not a regular file", false},
		{"a directory", sub, " is a directory, not a regular file", false},
	}
	commands := []struct {
		name string
		// args is the command line that reads path, and the path the refusal names.
		args func(path string) ([]string, string)
		what string // what the limit's message calls the file
	}{
		{"run", func(p string) ([]string, string) {
			// run takes a folder of tests as well as a file, so a directory given is a folder:
			// the input is linked into one, as for sweep, and every file run reads is held to
			// the same checks.
			d := t.TempDir()
			link := filepath.Join(d, "a.json")
			noErr(t, os.Symlink(p, link))
			return []string{"run", d, "--base-url", "http://127.0.0.1:1"}, link
		}, "test file"},
		{"repair", func(p string) ([]string, string) {
			return []string{"repair", p, "--base-url", "http://127.0.0.1:1", "--state", t.TempDir(), "--region", "us-east-1"}, p
		}, "test file"},
		{"sweep", func(p string) ([]string, string) {
			// sweep reads every *.json of its directory: the input is linked there.
			d := t.TempDir()
			link := filepath.Join(d, "a.json")
			noErr(t, os.Symlink(p, link))
			return []string{"sweep", "--tests", d, "--base-url", "http://127.0.0.1:1", "--state", t.TempDir(), "--model", "none"}, link
		}, "test file"},
		{"serve", func(p string) ([]string, string) {
			return []string{"serve", "--template", p, "--state", t.TempDir(), "--region", "us-east-1"}, p
		}, "template"},
		{"demo", func(p string) ([]string, string) {
			return []string{"demo", "--template", p, "--state", t.TempDir(), "--region", "us-east-1"}, p
		}, "template"},
		{"locate", func(p string) ([]string, string) { return []string{"locate", "--in", p}, p }, ""},
	}
	for _, cmd := range commands {
		for _, in := range inputs {
			if in.bounded && cmd.what == "" {
				continue
			}
			t.Run(cmd.name+"/"+in.name, func(t *testing.T) {
				args, named := cmd.args(in.path)
				want := named + in.want
				if in.bounded {
					want += cmd.what
				}
				type result struct {
					code   int
					stderr string
				}
				done := make(chan result, 1)
				go func() {
					var out, errb bytes.Buffer
					code := dispatch(args, strings.NewReader(""), &out, &errb)
					done <- result{code, errb.String()}
				}()
				select {
				case r := <-done:
					if r.code != exitBadInput || !strings.Contains(r.stderr, want) {
						t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, r.code, r.stderr, want)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("%v: still reading after 10s", args)
				}
			})
		}
	}
	// A file at the limit is read: what refuses it is its content (zero bytes are no JSON).
	var out, errb bytes.Buffer
	if code := dispatch([]string{"run", atLimit, "--base-url", "http://127.0.0.1:1"}, nil, &out, &errb); code != exitBadInput || strings.Contains(errb.String(), "limit for a") || !strings.Contains(errb.String(), atLimit+": ") {
		t.Errorf("a file at the limit: exit %d, stderr %q; want it read and refused as malformed", code, errb.String())
	}
}

// TestMalformedTestFileNamesItsPath: a test file that decodes to nothing usable (here, a second
// object after the first) is refused with exit 2 by every command that reads one, and the error
// names the file.
func TestMalformedTestFileNamesItsPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.json")
	noErr(t, os.WriteFile(file, []byte(`{"id":"a","steps":[{"kind":"goto","url":"/"}]}{"id":"b"}`), 0o644))
	for _, args := range [][]string{
		{"run", file, "--base-url", "http://127.0.0.1:1"},
		{"repair", file, "--base-url", "http://127.0.0.1:1", "--state", t.TempDir(), "--region", "us-east-1"},
		{"sweep", "--tests", dir, "--base-url", "http://127.0.0.1:1", "--state", t.TempDir(), "--model", "none"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(args, nil, &out, &errb); code != exitBadInput || !strings.Contains(errb.String(), "gardener "+args[0]+": "+file+": ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the file named", args, code, errb.String())
		}
	}
}

// A team runs the checkout's bin/gardener from its own repository: the template is found from
// the binary's directory up when the working directory has none, and a template above the
// working directory wins over the binary's.
func TestTemplateFoundFromTheWorkingDirectoryThenTheBinary(t *testing.T) {
	teamRepo, checkout := t.TempDir(), t.TempDir()
	bin := filepath.Join(checkout, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(checkout, "template.yaml")
	if err := os.WriteFile(want, []byte("Resources: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := templateFrom(filepath.Join(teamRepo, "tests"), bin); err != nil || got != want {
		t.Fatalf("from a team's repository with the checkout's binary: %q, %v; want %q", got, err, want)
	}
	if got, err := templateFrom(bin, teamRepo); err != nil || got != want {
		t.Fatalf("from inside the checkout: %q, %v; want %q", got, err, want)
	}
	// A directory named template.yaml is no template.
	if err := os.Mkdir(filepath.Join(teamRepo, "template.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := templateFrom(teamRepo)
	if err == nil || !strings.Contains(err.Error(), "--template") {
		t.Fatalf("with no template anywhere: %v; want an error that names --template", err)
	}
}
