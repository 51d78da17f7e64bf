// Package codec holds what stackdump's format packages share, and nothing
// any one of them owns: the input as a reader takes it ([Stream], which
// counts bytes so that an error can name where the input broke off); the
// lines of the text formats ([Lines] over a [LineReader], with its
// overlong-line rule and a cursor that only reading or [LineReader.Advance]
// moves; a [Layer], such as internal/unpaste's paste layer, may stand
// between them); the [Form] each text codec declares of its lines, which
// the door composes ([Forms]); the read loop every format's reader runs
// ([Reader] over a [Decoder]); and small helpers of the writers (chunked
// writes, group state lists, count bounds).
package codec
