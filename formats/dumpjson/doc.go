// Package dumpjson reads and writes stackdump's JSON (stack.KindJSON,
// docs/json.md): one document per dump, routines streamed as they come,
// and grouped documents. The writer is internal/jsonenc's, kept apart so
// that the in-process capture links it without the reader's JSON parser.
package dumpjson
