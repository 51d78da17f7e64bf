// Package output names stackdump's outputs: the formats a dump is written
// in ([Format]), the compressions ([Compression]), the rule that settles
// both from a file name and explicit choices ([For]), and the buffered,
// compressed [Writer] every output goes through.
package output
