package goproc

import (
	"encoding/binary"

	"github.com/stackdump/stackdump/goproc/internal/rtlayout"
)

// gRecord is what the reader takes from one runtime.g.
type gRecord struct {
	addr uint64 // the g's address

	// The head: what says where the goroutine is, read while the target
	// is stopped and re-read to check that the goroutine did not move.
	stackLo, stackHi     uint64
	schedSP, schedPC     uint64
	schedLR, schedBP     uint64
	syscallSP, syscallPC uint64
	status               uint32
	goid                 uint64
	waitSince            int64
	waitReason           uint8
	trackingSeq          uint8 // counts each time it stopped running
	m                    uint64

	// The rest, which does not change while the goroutine is parked.
	lockedM         uint64
	parentGoid      uint64
	goPC, startPC   uint64
	labels          uint64
	runningCleanups bool
	bubble          uint64
	ancestors       uint64 // *[]ancestorInfo
}

// recordSizes returns how many bytes of a g hold its head and its whole
// record as the reader needs them.
func recordSizes(l *rtlayout.G) (head, full int) {
	for _, o := range []int{l.StackLo, l.StackHi, l.SchedSP, l.SchedPC, l.SchedLR, l.SchedBP, l.SyscallSP, l.SyscallPC, l.Status, l.Goid, l.WaitSince, l.WaitReason, l.TrackingSeq, l.M} {
		head = max(head, o+8)
	}
	full = head
	for _, o := range []int{l.LockedM, l.ParentGoid, l.GoPC, l.StartPC, l.Labels, l.RunningCleanups, l.Bubble, l.Ancestors} {
		full = max(full, o+8)
	}
	return head, min(full, l.Size)
}

// decodeHead fills the head of r from b, the first bytes of a g.
func (r *gRecord) decodeHead(l *rtlayout.G, b []byte) {
	le := binary.LittleEndian
	u := func(off int) uint64 { return le.Uint64(b[off:]) }
	r.stackLo, r.stackHi = u(l.StackLo), u(l.StackHi)
	r.schedSP, r.schedPC, r.schedLR, r.schedBP = u(l.SchedSP), u(l.SchedPC), u(l.SchedLR), u(l.SchedBP)
	r.syscallSP, r.syscallPC = u(l.SyscallSP), u(l.SyscallPC)
	r.status = le.Uint32(b[l.Status:])
	r.goid = u(l.Goid)
	r.waitSince = int64(u(l.WaitSince))
	r.waitReason = b[l.WaitReason]
	r.trackingSeq = b[l.TrackingSeq]
	r.m = u(l.M)
}

// decodeRest fills the rest of r from b, the whole record.
func (r *gRecord) decodeRest(l *rtlayout.G, b []byte) {
	le := binary.LittleEndian
	u := func(off int) uint64 {
		if off < 0 || off+8 > len(b) {
			return 0
		}
		return le.Uint64(b[off:])
	}
	r.lockedM = u(l.LockedM)
	r.parentGoid = u(l.ParentGoid)
	r.goPC, r.startPC = u(l.GoPC), u(l.StartPC)
	r.labels = u(l.Labels)
	if l.RunningCleanups >= 0 {
		r.runningCleanups = b[l.RunningCleanups] != 0
	}
	r.bubble = u(l.Bubble)
	r.ancestors = u(l.Ancestors)
}

// sameHead reports whether two reads of a goroutine's head show it in the
// same place, not having run in between: same status, stack, saved
// registers and wait reason, and the same count of times it stopped
// running (trackingSeq, which the runtime bumps each time a goroutine
// leaves _Grunning: a goroutine that ran and parked again at the same
// place has a new one, unless it did so a multiple of 256 times in
// between). The wait time is left out: the garbage collector stamps it
// on a parked goroutine.
func sameHead(a, b *gRecord) bool {
	return a.status == b.status && a.goid == b.goid && a.trackingSeq == b.trackingSeq &&
		a.stackLo == b.stackLo && a.stackHi == b.stackHi &&
		a.schedSP == b.schedSP && a.schedPC == b.schedPC && a.schedLR == b.schedLR && a.schedBP == b.schedBP &&
		a.syscallSP == b.syscallSP && a.syscallPC == b.syscallPC &&
		a.waitReason == b.waitReason
}
