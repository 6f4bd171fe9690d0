package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildGardener builds the gardener binary into a temporary folder, for the packages that drive
// it as a process of its own (its doors as a team meets them), and returns its path and a func
// that removes it. A package's TestMain calls it before Main; on failure it says why on stderr,
// naming pkg, and exits.
func BuildGardener(pkg, cmdDir string) (string, func()) {
	dir, err := os.MkdirTemp("", "gardener-bin-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", pkg, err)
		os.Exit(1)
	}
	binary := filepath.Join(dir, "gardener")
	build := exec.Command("go", "build", "-o", binary, cmdDir)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: building the gardener: %v\n", pkg, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	return binary, func() { os.RemoveAll(dir) }
}
