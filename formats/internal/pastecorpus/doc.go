// Package pastecorpus holds the test that reads every pasted form of the
// repository's real dumps (internal/paste applied to testdata/) through the
// door and compares what it reads with what the original reads: issue 22's
// transformed corpus. It has no code of its own.
package pastecorpus
