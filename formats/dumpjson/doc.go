// Package dumpjson reads and writes stackdump's JSON (stack.KindJSON, schema
// "stackdump/v1", docs/json.md and docs/stackdump.schema.json): one
// document per dump, every routine with its state, labels and stack and the
// dump's races, system stack and warnings, or a grouped document of counted
// groups. It is the form for scripts (jq, `stackdump query`) and for
// keeping dumps, and stackdump reads it back as it read the original.
//
// [NewEncoder] writes routines as they come, into a buffered writer
// (an output.Writer), without holding the dump; [WriteGroups] writes the
// groups package dedupe made. A [Reader] streams a document or a stream of
// documents one routine at a time (a document whose routines come before
// its metadata, as after `jq -S`, is read whole, bounded by
// ReadOptions.MaxBytes), reads a grouped document back as counted records
// (one per group and state, docs/json.md), and reports an element it
// cannot read, or a count out of range, with its byte offset.
//
//	out, err := output.NewWriter(w, output.Gzip)
//	if err != nil {
//		return err
//	}
//	if err := stack.WriteDump(dumpjson.NewEncoder(out), d); err != nil {
//		return err
//	}
//	return out.Close()
//
// The writer is internal/jsonenc's, kept apart so that a service that
// serves JSON (package dumper) links it without the reader's JSON parser.
package dumpjson
