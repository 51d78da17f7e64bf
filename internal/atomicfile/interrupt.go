package atomicfile

import (
	"errors"
	"os"
	"sync"
)

// ErrInterrupted is the error of a Create or Commit after [Interrupt].
var ErrInterrupted = errors.New("interrupted")

// live is the set of temporary files of the process's open Files.
var live = struct {
	sync.Mutex
	temps       map[string]bool
	interrupted bool
}{temps: map[string]bool{}}

// forget drops a temporary file that was renamed or removed.
func forget(name string) {
	live.Lock()
	delete(live.temps, name)
	live.Unlock()
}

// Interrupt removes the temporary file of every open File and makes every
// later Create and Commit fail with [ErrInterrupted], so that no partial
// file is published or left behind by a process about to exit on a
// signal. Destinations are left as they were. It returns how many
// temporary files it removed.
func Interrupt() int {
	live.Lock()
	defer live.Unlock()
	live.interrupted = true
	n := 0
	for name := range live.temps {
		if os.Remove(name) == nil {
			n++
		}
		delete(live.temps, name)
	}
	return n
}
