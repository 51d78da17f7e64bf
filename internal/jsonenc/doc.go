// Package jsonenc writes stackdump/v1 JSON (docs/json.md): dumps streamed
// routine by routine, grouped documents, and the parts of one document
// that the in-process capture encodes on several goroutines (Chunks).
// It is formats/dumpjson's writer, kept apart from its reader so that
// package dumper links the writer without the reader's JSON parser.
package jsonenc
