package formats

import (
	"testing"

	"github.com/stackdump/stackdump/formats/output"
)

func BenchmarkWriteText(b *testing.B) { benchWrite(b, output.Text, writerBenchDump(100_000)) }
