package testkit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// BuildGardener builds the gardener binary, for the packages that drive it as a process of its
// own (its doors as a team meets them), and returns its path and a func to call once the tests
// are done with it. A package's TestMain calls it before Main; on failure it says why on stderr,
// naming pkg, and exits.
//
// It builds with `go run -exec echo`, which prints the path of the binary instead of running
// it: go run keeps the executables it links in the build cache, so the packages of one
// `go test ./...` that each drive the binary (conformance, firsthour, security) link it once
// between them, not once each (a link of the gardener took 10 to 20 s of a package's time on a
// loaded machine), and a later run with the same sources links it not at all. The binary is
// what `go build` makes of the same sources; it stays in the cache, which go trims by itself,
// so the func removes nothing.
func BuildGardener(pkg, cmdDir string) (string, func()) {
	// On a cache miss go run links in a temporary folder, prints that path and removes it as it
	// exits, having put the binary in the cache: the second call prints the cached one.
	var out bytes.Buffer
	for range 2 {
		out.Reset()
		build := exec.Command("go", "run", "-exec", "echo", cmdDir)
		build.Stdout, build.Stderr = &out, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: building the gardener: %v\n", pkg, err)
			os.Exit(1)
		}
		binary := strings.TrimSpace(out.String())
		if st, err := os.Stat(binary); err == nil && st.Mode().IsRegular() {
			return binary, func() {}
		}
	}
	fmt.Fprintf(os.Stderr, "%s: building the gardener: go run -exec echo printed %q, which is no binary that stays\n", pkg, out.String())
	os.Exit(1)
	return "", nil
}
