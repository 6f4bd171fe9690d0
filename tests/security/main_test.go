package security_test

import (
	"os"
	"testing"

	"github.com/driftgardener/gardener/tests/testkit"
)

// binary is the gardener, for the doors that are a process of their own (the CLI and MCP over
// stdio). No probe of the suite replays a page: it starts no browser.
var binary string

func TestMain(m *testing.M) {
	var remove func()
	binary, remove = testkit.BuildGardener("tests/security", "../../cmd/gardener")
	code := m.Run()
	remove()
	os.Exit(code)
}
