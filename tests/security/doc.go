// Package security is the security suite: one table of probes an attacker tries, each at one
// door of the gardener (the review API, the console, MCP over stdio, the CLI, the store), with
// the answer the door must give. Every row was a hole when it was added: the suite is the record
// that it stays closed. The suite is all in its tests; this file only names the package.
package security
