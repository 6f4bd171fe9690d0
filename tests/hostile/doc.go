// Package hostile is the hostile-model conformance suite: a model that does whatever a page
// tells it proposes, for every check kind of the assertion floor, every way to neuter the check,
// and each proposal climbs the real ladder in real Chromium against a demo-app regression in
// auto-repair mode. None may be written: each must end refused by the floor, red, or staged for
// a person. The suite is all in its tests; this file only names the package.
package hostile
