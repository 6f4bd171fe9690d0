package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// pagePair is one input line: a "Sign in" button to find among n candidates, the button last.
func pagePair(app string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"app":%q,"extra":{"ignored":true},"targets":[`, app)
	b.WriteString(`{"tag":"BUTTON","id":"login","name":null,"visibleText":["Sign in"],"xpath":"/html[1]/body[1]/form[1]/button[1]","location":{"x":10,"y":10,"width":80,"height":30},"area":2400}`)
	b.WriteString(`],"candidates":[`)
	for i := range n - 1 {
		fmt.Fprintf(&b, `{"tag":"A","href":"/p/%d","visibleText":["Item %d"],"xpath":"/html[1]/body[1]/ul[1]/li[%d]/a[1]","location":{"x":10,"y":%d,"width":200,"height":20},"area":4000},`, i, i, i+1, 100+20*i)
	}
	b.WriteString(`{"tag":"BUTTON","id":"login","visibleText":["Sign in"],"xpath":"/html[1]/body[1]/div[1]/form[1]/button[1]","location":{"x":10,"y":10,"width":80,"height":30},"area":2400}`)
	b.WriteString(`]}`)
	return b.String()
}

func runLocateLines(t *testing.T, args []string, input string) (code int, out []locateOut, stderr string) {
	t.Helper()
	var so, se bytes.Buffer
	code = dispatch(append([]string{"locate"}, args...), strings.NewReader(input), &so, &se)
	sc := bufio.NewScanner(&so)
	for sc.Scan() {
		var o locateOut
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		out = append(out, o)
	}
	return code, out, se.String()
}

func TestLocateCLI(t *testing.T) {
	cases := []struct {
		name        string
		args        []string
		input       string
		code        int
		choices     [][]int // per output line
		errLine     int     // output line (1-based) expected to carry an error, 0 none
		stderrHas   string
		stderrEmpty bool
	}{
		{
			name:        "two good lines",
			input:       pagePair("a", 3) + "\n" + pagePair("b", 5) + "\n",
			code:        0,
			choices:     [][]int{{2}, {4}},
			stderrEmpty: true,
		},
		{
			name:      "malformed line is named and the others still answered",
			input:     pagePair("a", 3) + "\n{not json\n" + pagePair("c", 4),
			code:      2,
			choices:   [][]int{{2}, {}, {3}},
			errLine:   2,
			stderrHas: "line 2:",
		},
		{
			name:        "blank lines skipped",
			input:       "\n" + pagePair("a", 2) + "\n\n",
			code:        0,
			choices:     [][]int{{1}},
			stderrEmpty: true,
		},
		{
			name:        "missing fields are empty",
			input:       `{"app":"x"}` + "\n",
			code:        0,
			choices:     [][]int{{}},
			stderrEmpty: true,
		},
		{
			name:    "threshold 1 abstains on anything short of certainty",
			args:    []string{"--threshold", "1"},
			input:   pagePair("a", 3) + "\n",
			code:    0,
			choices: [][]int{{-1}},
		},
		{
			name:    "threshold 0 never abstains, even with the element gone",
			args:    []string{"--threshold", "0"},
			input:   `{"app":"a","targets":[{"tag":"BUTTON","visibleText":["Sign in"]}],"candidates":[{"tag":"A","visibleText":["Home"]}]}` + "\n",
			code:    0,
			choices: [][]int{{0}},
		},
		{
			name:    "the shipping threshold abstains when the element is gone",
			input:   `{"app":"a","targets":[{"tag":"BUTTON","visibleText":["Sign in"]}],"candidates":[{"tag":"A","visibleText":["Home"]}]}` + "\n",
			code:    0,
			choices: [][]int{{-1}},
		},
		{
			name:      "threshold out of range",
			args:      []string{"--threshold", "1.5"},
			input:     pagePair("a", 2),
			code:      2,
			stderrHas: "not in [0, 1]",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runLocateLines(t, tc.args, tc.input)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if len(out) != len(tc.choices) {
				t.Fatalf("%d output lines, want %d: %+v", len(out), len(tc.choices), out)
			}
			for i, o := range out {
				if fmt.Sprint(o.Choices) != fmt.Sprint(tc.choices[i]) {
					t.Errorf("line %d choices %v, want %v", i+1, o.Choices, tc.choices[i])
				}
				if len(o.Scores) != len(o.Choices) {
					t.Errorf("line %d: %d scores for %d choices", i+1, len(o.Scores), len(o.Choices))
				}
				if (o.Error != "") != (i+1 == tc.errLine) {
					t.Errorf("line %d error %q, want an error only on line %d", i+1, o.Error, tc.errLine)
				}
			}
			if tc.stderrHas != "" && !strings.Contains(stderr, tc.stderrHas) {
				t.Errorf("stderr %q does not name %q", stderr, tc.stderrHas)
			}
			if tc.stderrEmpty && stderr != "" {
				t.Errorf("stderr %q, want nothing", stderr)
			}
		})
	}
}

// TestLocateCLIBigLine feeds a page of 5,000 candidates padded to over 20 MB on one line,
// between two ordinary lines.
func TestLocateCLIBigLine(t *testing.T) {
	big := pagePair("big", 5000)
	pad := strings.Repeat("x", 21<<20-len(big))
	big = strings.Replace(big, `"extra":{"ignored":true}`, `"extra":"`+pad+`"`, 1)
	if len(big) < 20<<20 {
		t.Fatalf("line is %d bytes, want over 20 MB", len(big))
	}
	code, out, stderr := runLocateLines(t, nil, pagePair("a", 2)+"\n"+big+"\n"+pagePair("c", 3)+"\n")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := []string{"[1]", "[4999]", "[2]"}
	for i, o := range out {
		if fmt.Sprint(o.Choices) != want[i] {
			t.Errorf("line %d choices %v, want %s", i+1, o.Choices, want[i])
		}
	}
}

func TestReadLineTooLong(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("y", 100)+"\nafter"), 16)
	var got []string
	for {
		line, err := readLine(r, 50)
		if err != nil && err != errLineTooLong {
			break
		}
		if err == errLineTooLong {
			got = append(got, "TOO LONG")
			continue
		}
		got = append(got, string(line))
	}
	if want := "short|TOO LONG|after"; strings.Join(got, "|") != want {
		t.Errorf("lines %q, want %q", strings.Join(got, "|"), want)
	}
}

// failingWriter takes n bytes and then fails every write, as a full disk or a closed pipe does.
type failingWriter struct{ n int }

var errDiskFull = errors.New("no space left on device")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	took := w.n
	w.n = 0
	return took, errDiskFull
}

// TestLocateCLIWriteFails checks that output lost to a failed write is an error and exit 3,
// both when the buffered last lines fail at the end and when a write fails midway.
func TestLocateCLIWriteFails(t *testing.T) {
	small := pagePair("a", 3) + "\n" + pagePair("b", 5) + "\n"
	var many strings.Builder
	for range 200 {
		many.WriteString(pagePair("m", 4) + "\n")
	}
	cases := []struct {
		name  string
		input string
		room  int // bytes the writer takes before failing
	}{
		{"fails at the final flush", small, 0},
		{"fails midway", many.String(), 1000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var se bytes.Buffer
			code := dispatch([]string{"locate"}, strings.NewReader(tc.input), &failingWriter{n: tc.room}, &se)
			if code != exitFailure {
				t.Errorf("exit code %d, want %d (stderr %q)", code, exitFailure, se.String())
			}
			stderr := se.String()
			if !strings.Contains(stderr, "gardener locate: writing output: "+errDiskFull.Error()) {
				t.Errorf("stderr %q does not report the failed write", stderr)
			}
			if n := strings.Count(stderr, "writing output"); n != 1 {
				t.Errorf("stderr reports the failed write %d times, want once: %q", n, stderr)
			}
		})
	}
}
