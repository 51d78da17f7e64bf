package formats

import "testing"

func BenchmarkWriteText(b *testing.B) { benchWrite(b, FormatText, benchDump(100_000)) }
