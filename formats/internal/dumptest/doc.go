// Package dumptest holds what the tests of the format packages share:
// models compared as text (Describe, EqualDumps), hand-built models that
// set every field (GoDump, JVMDump, Groups), the seed files of fuzz
// targets (SeedFiles, ReadSeeds), a generated traceback of any size
// (Traceback), a server-like dump of any size for benchmarks
// (ServerDump), readers of hostile inputs and a heap bound (RepeatReader,
// GenReader, CheckHeap), what the profile codecs' tests share (Encode,
// FailingWriter, FullDump, CheckSameGroups, the GeneratedCounts of
// testdata/gen/profiles, ProfileText), and the -update flag of golden
// tests. It imports the model and the standard library only, so that
// every format's tests may use it.
package dumptest
