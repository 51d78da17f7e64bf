package formats

const (
	defaultMaxLine         = 1 << 20
	defaultMaxDecompressed = 16 << 30
)
