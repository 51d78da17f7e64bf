// Package codec holds what stackdump's format packages share, and nothing
// any one of them owns: the input as a reader takes it ([Stream], which
// counts bytes so that an error can name where the input broke off), the
// one line reader of the text formats ([LineReader] and its overlong-line
// rule), the read loop every format's reader runs ([Reader] over a
// [Decoder]), and small helpers of the writers (chunked writes, group
// state lists, count bounds).
package codec
