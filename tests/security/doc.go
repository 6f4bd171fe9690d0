// Package security is the security suite: one table of probes an attacker tries, each at one
// door of the gardener (the review API, the console, MCP over stdio, the CLI, the event bus, the
// store), with the answer the door must give. Every row was a hole when it was added: the suite
// is the record that it stays closed. The suite is all in its tests; this file only names the
// package.
//
// To add a probe, add a row to table (table_test.go) at the end of its door's group: what is
// tried, the door, what is sent (ask: the fields that door's driver reads) and the answer
// (want). A door the table lacks gets a driver in world_test.go and a case in send. Check that
// the row fails on the code before the fix, and say so in the commit.
package security
