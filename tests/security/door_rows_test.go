package security_test

// Issue 31, 5–7 and the CLI's ids of 1, at the doors the suite drives: a repair asked of a run
// the gate never serves, executions across a restart and a kill -9 of the local stack, the
// stale files a killed process left, and the ids the CLI's commands are given.
func init() {
	table = append(table, doorRows...)
}

// deadOwner names a temporary file or directory as a process that no longer runs left it:
// pid 2147483646 is above any kernel's pid_max, so no process has it (see pkg/ownedtemp).
const deadOwner = "2147483646.1-1"

var doorRows = []row{
	// A probe run is refused at the door like a control run (issue 31, 5): 403, nothing started.
	{"a repair asked of a scenario probe run", api, ask{method: "POST", path: "/runs/" + probeRun + "/repair", body: `{}`},
		want{status: 403, says: []string{"scenario probe"}}},
	{"a repair asked of a negative control run", api, ask{method: "POST", path: "/runs/" + controlRun + "/repair", body: `{}`},
		want{status: 403, says: []string{"negative control run"}}},

	// Executions and their status outlive the local stack (issue 31, 6).
	{"an execution asked for after the local stack restarted", api, ask{method: "GET", path: "/executions/{execution}",
		earlier: []ask{{method: "POST", path: "/runs/" + failedRun + "/repair", body: `{}`}}},
		want{status: 200, says: []string{`"status"`}}},
	{"an execution whose stack was killed (kill -9) while it ran", api, ask{method: "GET", path: "/executions/{execution}",
		earlier: []ask{{method: "POST", path: "/runs/" + failedRun + "/repair", body: `{}`}}, kill: true},
		want{status: 200, says: []string{"ABORTED"}}},
	{"a repair asked again after its stack was killed (kill -9)", api, ask{method: "GET", path: "/executions/{execution}/events",
		earlier: []ask{{method: "POST", path: "/runs/" + failedRun + "/repair", body: `{}`}}, kill: true,
		before: []ask{{method: "POST", path: "/runs/" + failedRun + "/repair", body: `{}`}}},
		want{status: 200, once: []string{`"stage":"eligibility"`}}},

	// A run after a crash removes what the crashed process left (issue 31, 7).
	{"a temporary file a killed write left beside a test file", cli, ask{args: []string{"fmt", "{dir}/t.json"},
		files: map[string]string{"t.json": testBody("t1"), ".gardener-" + deadOwner + ".tmp": "half a test"},
		gone:  []string{".gardener-" + deadOwner + ".tmp"}},
		want{status: 0}},
	{"a Chromium profile a killed run left", cli, ask{args: []string{"run", "--base-url", "{app}", "{dir}/t.json"},
		files: map[string]string{"t.json": testBody("t1"), "tmp/gardener-chromium-" + deadOwner + "/Default/Cookies": "session"},
		// No browser starts (it is /bin/false): the profiles are swept before it is launched.
		env:  map[string]string{"CHROME_PATH": "/bin/false", "TMPDIR": "{dir}/tmp"},
		gone: []string{"tmp/gardener-chromium-" + deadOwner}},
		want{status: 3, says: []string{"starting Chromium"}}},

	// The CLI's id arguments follow the id rule (issue 31, 1), checked before the state is read.
	{"a control character in a test id argument", cli, ask{args: []string{"history", "t1\x01x", "--state", "{dir}"}},
		want{status: 2, says: []string{`"TEST"`, "not allowed in an id"}}},
	{"a control character in a proposal id argument", cli, ask{args: []string{"approve", "prop\nforged", "--state", "{dir}"}},
		want{status: 2, says: []string{`"PROPOSAL"`, "not allowed in an id"}}},
	{"a 600-byte proposal id argument", cli, ask{args: []string{"dismiss", longID[:600], "--state", "{dir}"}},
		want{status: 2, says: []string{`"PROPOSAL"`, "at most 512"}}},
	{"a control character in a repair id argument", cli, ask{args: []string{"revert", "rp\x1b[2J", "--yes", "--state", "{dir}"}},
		want{status: 2, says: []string{`"REPAIR"`, "not allowed in an id"}}},
	{"a control character in a project flag", cli, ask{args: []string{"queue", "--project", "alpha\x7f", "--state", "{dir}"}},
		want{status: 2, says: []string{`"--project"`, "not allowed in an id"}}},
	{"a project flag of push too long", cli, ask{args: []string{"push", "{dir}", "--project", longID[:200], "--state", "{dir}"}},
		want{status: 2, says: []string{`"--project"`, "at most 128"}}},
	{"a control character in the setup test's id of a sweep", cli, ask{args: []string{"sweep", "--tests", "{dir}", "--base-url", "{app}", "--setup", "log\x01in"}},
		want{status: 2, says: []string{`"--setup"`, "not allowed in an id"}}},
	{"a control character in a project flag of pull", cli, ask{args: []string{"pull", "{dir}", "--project", "al\tpha", "--state", "{dir}"}},
		want{status: 2, says: []string{`"--project"`, "not allowed in an id"}}},

	// Events from the bus follow the id rule (issue 31, 1): the function the event reaches
	// refuses it naming the field, before anything is read or written under that id.
	{"a NUL byte in a failed run's id on the bus", bus, ask{detailType: "Run Failed",
		detail: `{"runId":"r1\u0000other","testId":"t1","projectId":"alpha","testVersion":1,"trigger":"schedule"}`},
		want{says: []string{"runId", "not allowed in an id"}}},
	{"a 200 KB project id in a passed run on the bus", bus, ask{detailType: "Run Passed",
		detail: `{"runId":"ci-1","testId":"t1","projectId":"` + longID + `","testVersion":1}`},
		want{says: []string{"projectId", "at most"}}},
}
