package dumptest

import (
	"bytes"
	"strconv"
)

// FirstDiff shows the first differing line of two texts.
func FirstDiff(want, got string) string {
	wl, gl := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + string(w) + "\ngot:  " + string(g)
		}
	}
	return "(no difference)"
}
