package recorder

import (
	"strings"
	"testing"
)

// TestImportTellsTheFormats: the content decides — steps are a Chrome Recorder recording, tests
// a Selenium IDE project, whatever the file is called — and a .side file that is no project, or
// anything else, is refused saying what each format looks like.
func TestImportTellsTheFormats(t *testing.T) {
	rec := `{"title":"t","steps":[{"type":"navigate","url":"http://app.test/"}]}`
	side := `{"name":"p","url":"http://app.test","tests":[{"name":"a","commands":[{"command":"open","target":"/"}]},{"name":"b","commands":[{"command":"open","target":"/b"}]}]}`
	for _, c := range []struct {
		data, name string
		format     Format
		tests      int
	}{
		{rec, "login.json", ChromeRecorder, 1},
		{rec, "recording.txt", ChromeRecorder, 1},
		{side, "suite.side", SeleniumIDE, 2},
		{side, "suite.json", SeleniumIDE, 2},
	} {
		imp, err := Import([]byte(c.data), c.name)
		if err != nil || imp.Format != c.format || len(imp.Tests) != c.tests {
			t.Errorf("%s: %s with %d tests, %v; want %s with %d", c.name, imp.Format, len(imp.Tests), err, c.format, c.tests)
		}
	}
	for _, c := range []struct{ data, name, want string }{
		{rec, "login.side", `a .side file holds a Selenium IDE project, an object with "tests"`},
		{`{"steps":[],"tests":[]}`, "x.json", "this one has both"},
		{`{"commands":[]}`, "x.json", "this one has neither"},
		{`[1,2]`, "x.json", "are JSON objects, and this is not one"},
		{`null`, "x.json", "it is null"},
		{`{"tests":[]}`, "x.side", "the project has no tests"},
	} {
		if _, err := Import([]byte(c.data), c.name); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want it to say %q", c.name, c.data, err, c.want)
		}
	}
}
