package security_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/driftgardener/gardener/tests/testkit"
)

// binary is the gardener, for the doors that are a process of their own (the CLI and MCP over
// stdio). No probe of the suite replays a page: it starts no browser.
var binary string

func TestMain(m *testing.M) {
	if state := os.Getenv(killedStack); state != "" {
		// This process is the local stack a crash probe kills (see world.crash).
		if err := serveUntilKilled(state); err != nil {
			fmt.Println("ERROR", err)
			os.Exit(3)
		}
	}
	var remove func()
	binary, remove = testkit.BuildGardener("tests/security", "../../cmd/gardener")
	code := m.Run()
	remove()
	os.Exit(code)
}
