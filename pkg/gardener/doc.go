// Package gardener is the domain of Drift Gardener: saved tests and their steps, the operations
// a repair makes, the assertion floor that refuses unsafe operations, change classes, and the
// records a repair leaves (proposals, repairs, triage issues). It imports no AWS, browser or
// storage package; the ladder, the stores and the Lambdas are built around it.
package gardener
