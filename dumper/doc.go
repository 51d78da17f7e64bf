// Package dumper captures goroutine dumps inside a running Go process,
// serves them over HTTP and writes them to files atomically.
package dumper
