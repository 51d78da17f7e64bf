// Package judged holds, in its tests, the judged set of stackdump's
// verdicts: real processes, healthy and sick, each with its truth written
// down from how it was made (testdata/judged/CASE.json), captured,
// analysed as a user would (analyze over the snapshots in order, then
// timeline), and scored: every verdict kind's precision and recall are
// printed, and the test fails below the floors it sets.
//
// Healthy cases are real servers started on loopback ports in a
// temporary directory (etcd with thousands of watch streams, nats-server
// with a publishing and subscribing client, Prometheus scraping itself,
// caddy serving keep-alive connections, and caddy given more of them
// between snapshots, ZooKeeper and Tomcat idle); a case whose server is
// not installed is skipped and said so. Sick cases are the programs of
// testdata/gen/judged (Go) and testdata/gen/jvm/JudgedLocks.java (JDK 17).
// A case whose evidence needs the wall clock (go-connleak: waits past a
// minute) is captured in the background while the others run, and judged
// after them.
package judged
