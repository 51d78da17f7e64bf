// Package unpaste reads a dump as a person pasted it: it learns the frame
// a paste put around and into the dump's lines ([Sniff]: Markdown fences
// and quotes, HTML blocks, log, journald and docker prefixes, logger
// fields and quoting, numbered lists, grep separators, lines reversed or
// broken at a window's width, doubled or flattened) and sets it aside as
// a layer over the input's lines ([NewLines]), so that a text
// codec reads the dump's own lines, numbered and placed as in the input,
// and never sees the frame. Paste regions that end and lines left out
// reach the codec as codec.ErrRegionEnd and codec.ErrGap.
//
// Which lines belong to a dump is the codecs' to say (codec.Form): the
// door hands every text codec's forms in, a codec alone its own. A
// program that reads only the runtime's own text (the dumper, leakcheck:
// gotext.NewRuntimeReader) links none of this package.
package unpaste
