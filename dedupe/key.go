package dedupe

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"

	"github.com/stackdump/stackdump/stack"
)

// keyVersion opens every canonical form. Change it whenever the form
// changes, so that keys written by different versions never match by
// accident.
const keyVersion = "stackdump-key/1"

// keyHash is a group's identity: the first 64 bits of the SHA-256 of the
// routine's canonical form at the grouping level. It depends only on
// function names, file names, line numbers (and at ByExact states,
// offsets and arguments), never on pointers, ids or input order, so the
// same stack has the same key in every dump, format and process.
type keyHash uint64

// String returns the key as 16 lower-case hex digits, as in Group.Key.
func (h keyHash) String() string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(h))
	return hex.EncodeToString(b[:])
}

// hashCanonical hashes a canonical form.
func hashCanonical(form []byte) keyHash {
	sum := sha256.Sum256(form)
	return keyHash(binary.BigEndian.Uint64(sum[:8]))
}

// appendCanonical appends the canonical form of r at level by to b. The
// form is line oriented and every string in it is Go-quoted, so distinct
// routines (at that level) have distinct forms:
//
//	stackdump-key/1 stack
//	f "main.worker" "/src/app/worker.go" 42
//	f "main.main.func1" "/src/app/main.go" 17
//
// ByFunc writes only the function names; ByExact adds the state (`s`
// line), pc offsets, arguments, runtime frames and the elided frame count.
// The creator (`c` line) is written at ByExact, and at the other levels
// when withCreator is set.
func appendCanonical(b []byte, r *stack.Routine, by By, withCreator bool) []byte {
	b = append(b, keyVersion...)
	b = append(b, ' ')
	b = append(b, by.String()...)
	b = append(b, '\n')
	if by == ByExact {
		b = append(b, "s "...)
		b = strconv.AppendQuote(b, r.State)
		b = append(b, '\n')
	}
	var st *stack.Stack
	if r.Stack != nil {
		st = r.Stack
		b = appendFrames(b, r, st, by)
	}
	if r.CreatedBy != nil && (withCreator || by == ByExact) {
		b = append(b, 'c', ' ')
		b = appendFrame(b, r.CreatedBy, by)
		if by == ByExact {
			b = appendOffset(b, r.CreatedBy)
		}
		b = append(b, '\n')
	}
	return b
}

// appendFrames writes the frames of st that count at level by, with the
// elision marker where the runtime left frames out.
func appendFrames(b []byte, r *stack.Routine, st *stack.Stack, by By) []byte {
	frames := st.Frames
	all := by == ByExact
	hi := len(frames)
	if !all {
		// Runtime frames are left out: debug=1 and pprof hide the leading
		// ones (runtime.gopark …) and debug=2 hides the trailing ones
		// (runtime.main, runtime.goexit) and any unexported one in
		// between. A stack made only of runtime frames (a GC worker) keeps
		// them, less the runtime.goexit debug=1 shows and debug=2 hides.
		if keyFrameCount(frames) == 0 {
			all = true
			if hi > 0 && frames[hi-1].Func == "runtime.goexit" {
				hi--
			}
		}
	}
	for i := 0; i < hi; i++ {
		if st.Elided && i == st.ElidedAt {
			b = appendElision(b, st, by)
		}
		f := frames[i]
		if !all && isRuntimeFrame(f) {
			continue
		}
		b = append(b, 'f', ' ')
		b = appendFrame(b, f, by)
		if by == ByExact {
			b = appendOffset(b, f)
			b = append(b, ' ')
			b = strconv.AppendQuote(b, r.Arg(i))
		}
		b = append(b, '\n')
	}
	if st.Elided && st.ElidedAt >= hi {
		b = appendElision(b, st, by)
	}
	return b
}

func appendElision(b []byte, st *stack.Stack, by By) []byte {
	b = append(b, 'e')
	if by == ByExact {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(st.ElidedCount), 10)
	}
	return append(b, '\n')
}

// appendFrame writes the parts of f that count at level by. At ByStack and
// ByFunc, type arguments are written "[...]", whatever the format named
// them (see elideTypeArgs).
func appendFrame(b []byte, f *stack.Frame, by By) []byte {
	if by == ByExact {
		b = strconv.AppendQuote(b, f.Func)
	} else {
		b = strconv.AppendQuote(b, elideTypeArgs(f.Func))
	}
	if by == ByFunc {
		return b
	}
	b = append(b, ' ')
	b = strconv.AppendQuote(b, f.File)
	b = append(b, ' ')
	return strconv.AppendInt(b, int64(f.Line), 10)
}

func appendOffset(b []byte, f *stack.Frame) []byte {
	if !f.HasOffset {
		return append(b, " -"...)
	}
	b = append(b, " +0x"...)
	return strconv.AppendUint(b, f.Offset, 16)
}

// isRuntimeFrame reports whether f belongs to the runtime for grouping:
// stack.Frame.IsRuntime, plus `panic`, the name debug=2 gives
// runtime.gopanic.
func isRuntimeFrame(f *stack.Frame) bool {
	return f.IsRuntime() || f.Func == "panic"
}

// keyFrameCount counts the frames that are not the runtime's.
func keyFrameCount(frames []*stack.Frame) int {
	n := 0
	for _, f := range frames {
		if !isRuntimeFrame(f) {
			n++
		}
	}
	return n
}

// TopFrame returns the innermost frame of s that is not the runtime's
// (runtime.gopark, runtime.chanrecv, jdk.internal.misc.Unsafe.park): the
// code a routine is blocked in. It falls back to the innermost frame when
// every frame is the runtime's, and returns nil for an empty or nil stack.
func TopFrame(s *stack.Stack) *stack.Frame {
	if s == nil || len(s.Frames) == 0 {
		return nil
	}
	for _, f := range s.Frames {
		if !isRuntimeFrame(f) {
			return f
		}
	}
	return s.Frames[0]
}

// AppFrame returns the innermost frame of s that is neither the runtime's
// (as for TopFrame) nor the standard library's
// ([formats.Frame.IsStdlib]: net/http, internal/poll, the JDK's java.*):
// the application code a routine is in, under the library calls it made.
// It returns nil when every frame is the platform's (net/http's idle
// connections, the JVM's Reference Handler and idle JDK pool workers) and
// for an empty or nil stack.
func AppFrame(s *stack.Stack) *stack.Frame {
	if s == nil {
		return nil
	}
	for _, f := range s.Frames {
		if !isRuntimeFrame(f) && !f.IsStdlib() {
			return f
		}
	}
	return nil
}
