// Empty. An assembly file in the package lets runtime_go126.go declare a
// function without a body, for go:linkname.
