//go:build !cgo

package main

// blockInC cannot: the program was built without cgo.
func blockInC() bool { return false }
