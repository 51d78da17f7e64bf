package formats

import "errors"

// pendingCodec stands in for formats not written yet; it fails plainly.
type pendingCodec struct{}

var errPending = errors.New("format not supported yet")

func (pendingCodec) nextDump() (*Dump, error)       { return nil, errPending }
func (pendingCodec) nextRoutine() (*Routine, error) { return nil, errPending }
func (pendingCodec) BeginDump(*Dump) error          { return errPending }
func (pendingCodec) WriteRoutine(*Routine) error    { return errPending }
func (pendingCodec) EndDump(*Dump) error            { return errPending }
