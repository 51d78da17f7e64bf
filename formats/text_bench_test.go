package formats

import "testing"

func BenchmarkWriteText(b *testing.B) { benchWrite(b, FormatText, writerBenchDump(100_000)) }
