// Package functions holds one main package per Lambda of template.yaml, each a line that starts
// its handler.Functions entry through pkg/cloud. Its tests keep that table, the template, these
// directories and the Chromium image's Dockerfile in line, and prove no Lambda links the demo
// app.
package functions
