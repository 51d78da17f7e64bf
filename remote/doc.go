// Package remote captures dumps from other processes: Go services through
// net/http/pprof's /debug/pprof/goroutine or stackdump's own endpoint, gops
// agents, and JVMs through jcmd or jstack.
//
// A capture is a stream: [Open] returns the response body as an io.Reader
// that the formats reader consumes while it arrives, with a read-ahead pump
// so that a high-latency link costs about one round trip rather than one per
// read. Nothing holds a whole dump in memory.
package remote
