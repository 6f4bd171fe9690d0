// Package ownedtemp names temporary files and directories after the process that made them, so
// that a later process can tell the ones a crashed process left behind from the ones a live
// process still uses, and remove only the former.
//
// A name carries its owner as "<pid>.<start>": the process id and the process's start time
// (clock ticks since boot, from /proc/PID/stat), so a pid the kernel has since given to another
// process does not make a dead owner look alive. Where /proc is not readable the start is 0 and
// liveness is the pid's alone (signal 0).
package ownedtemp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Owner is a process as a temporary name carries it.
type Owner struct {
	PID   int
	Start uint64 // 0: unknown
}

func (o Owner) String() string { return fmt.Sprintf("%d.%d", o.PID, o.Start) }

// Self is this process.
func Self() Owner {
	pid := os.Getpid()
	start, _ := startTime(pid)
	return Owner{PID: pid, Start: start}
}

// Of is the owner a running process pid has; an error if it is not running.
func Of(pid int) (Owner, error) {
	start, err := startTime(pid)
	if err != nil && !errors.Is(err, errNoProc) {
		return Owner{}, err
	}
	return Owner{PID: pid, Start: start}, nil
}

// Pattern is the pattern os.CreateTemp and os.MkdirTemp take for a name of this process:
// prefix, this process's owner, a random part, suffix.
func Pattern(prefix, suffix string) string {
	return prefix + Self().String() + "-*" + suffix
}

// parse reads the owner from a name made by Pattern(prefix, suffix); ok is false for any
// other name, which is never removed.
func parse(name, prefix, suffix string) (Owner, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || !strings.HasSuffix(rest, suffix) {
		return Owner{}, false
	}
	owner, _, ok := strings.Cut(strings.TrimSuffix(rest, suffix), "-")
	if !ok {
		return Owner{}, false
	}
	p, s, ok := strings.Cut(owner, ".")
	if !ok {
		return Owner{}, false
	}
	pid, err1 := strconv.Atoi(p)
	start, err2 := strconv.ParseUint(s, 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return Owner{}, false
	}
	return Owner{PID: pid, Start: start}, true
}

// Alive reports whether o still runs: its pid is a process and, when o knows its start, one
// that started then (not a later process given the same pid).
func (o Owner) Alive() bool {
	start, err := startTime(o.PID)
	switch {
	case err == nil:
		return o.Start == 0 || start == o.Start
	case errors.Is(err, os.ErrNotExist):
		return false
	case errors.Is(err, errNoProc):
		// No /proc: the pid alone says. EPERM is a live process of another user.
		err := syscall.Kill(o.PID, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	return true // unreadable: assume alive, never remove a live process's files
}

// Sweep removes the entries of dir named by Pattern(prefix, suffix) whose owner no longer runs
// (a directory with everything in it), and returns the paths it removed. An entry of a live
// owner, of this process, or named otherwise is left alone. A failure to remove one is
// returned after the others are tried.
func Sweep(dir, prefix, suffix string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("sweeping %s for stale %s*%s: %w", dir, prefix, suffix, err)
	}
	// This process's own entries are kept without asking /proc; one named for an earlier process
	// that had this pid (another start) is a dead owner's like any other.
	self := Self()
	var removed []string
	var errs []error
	for _, e := range entries {
		o, ok := parse(e.Name(), prefix, suffix)
		if !ok || o == self || o.Alive() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, fmt.Errorf("removing %s, left by process %d: %w", path, o.PID, err))
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}

// errNoProc is a system without /proc.
var errNoProc = errors.New("no /proc")

// startTime is field 22 of /proc/PID/stat, the process's start in clock ticks since boot;
// os.ErrNotExist when there is no such process.
func startTime(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if _, serr := os.Stat("/proc/self/stat"); serr != nil {
				return 0, errNoProc
			}
		}
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces or parentheses itself:
	// the fields after it start past the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); the start time is field 22.
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return strconv.ParseUint(f[19], 10, 64)
}
