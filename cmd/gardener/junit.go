package main

import (
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// The JUnit XML report, in the shape CI systems (Jenkins, GitLab, GitHub actions that read
// JUnit) agree on: one suite, one testcase per test file, a failure for a red test and an error
// for a test that could not run.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// junitReport builds the report of a run's results.
func junitReport(results []fileResult) junitSuites {
	suite := junitSuite{Name: "gardener run", Tests: len(results)}
	var total int64
	var first time.Time
	for _, res := range results {
		r := res.Result
		total += r.Millis
		if !r.Started.IsZero() && (first.IsZero() || r.Started.Before(first)) {
			first = r.Started
		}
		c := junitCase{Name: r.TestID, Classname: strings.TrimSuffix(filepath.ToSlash(res.File), filepath.Ext(res.File)), File: res.File, Time: seconds(r.Millis)}
		var log strings.Builder
		for _, st := range r.Steps {
			verdict := "ok"
			if !st.Passed {
				verdict = "FAIL"
			}
			fmt.Fprintf(&log, "%s %s %s %dms\n", st.Path, st.Kind, verdict, st.Millis)
		}
		c.SystemOut = log.String()
		switch {
		case res.Error != "":
			suite.Errors++
			c.Error = &junitProblem{Message: res.Error, Type: "runtime", Text: res.Error}
		case !r.Passed:
			suite.Failures++
			msg := r.Message
			if r.FailedStep != "" && !strings.HasPrefix(msg, "step ") {
				msg = "step " + r.FailedStep + ": " + msg
			}
			c.Failure = &junitProblem{Message: msg, Type: string(r.ErrorKind), Text: fmt.Sprintf("%s\nfailed step: %s\nerror kind: %s\nfinal URL: %s", msg, r.FailedStep, r.ErrorKind, r.FinalURL)}
		}
		suite.Cases = append(suite.Cases, c)
	}
	if first.IsZero() {
		first = time.Now()
	}
	suite.Time, suite.Timestamp = seconds(total), first.UTC().Format("2006-01-02T15:04:05")
	return junitSuites{Name: "gardener", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Time: suite.Time, Suites: []junitSuite{suite}}
}

// writeJUnit writes the JUnit XML report of results to path, whole or not at all.
func writeJUnit(path string, results []fileResult) error {
	b, err := xml.MarshalIndent(junitReport(results), "", "  ")
	if err != nil {
		return fmt.Errorf("the JUnit report: %w", err)
	}
	return writeFileAtomic(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
