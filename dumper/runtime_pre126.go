//go:build !go1.26

package dumper

// runtimeGo126: see runtime_go126.go.
const runtimeGo126 = false
