package goproc

// Links reports whether the executable has a function named name in its
// symbol and line table (stripped binaries keep it): whether it links a
// package that defines it, net/http/pprof.Index say.
func (b *Binary) Links(name string) bool {
	f := b.tab.funcByName(name)
	return f.valid()
}
