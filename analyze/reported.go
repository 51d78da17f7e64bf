package analyze

import (
	"strconv"
	"strings"
)

// ReportedDeadlock is one "Found one Java-level deadlock:" section of a
// HotSpot thread dump.
type ReportedDeadlock struct {
	Threads []ReportedThread
}

// ReportedThread is one thread of a reported deadlock:
//
//	"dl-juc-1":
//	  waiting for ownable synchronizer 0x000000069e01adc8, (a java.util.concurrent.locks.ReentrantLock$NonfairSync),
//	  which is held by "dl-juc-2"
type ReportedThread struct {
	// Name is the thread's name.
	Name string
	// Waiting is what the thread waits for, as the JVM wrote it.
	Waiting string
	// Addr is the object it waits for ("0x000000069e01adc8"); empty for a
	// JVM TI raw monitor.
	Addr string
	// HeldBy is the name of the thread holding it; empty when unknown.
	HeldBy string
}

// Names returns the names of the threads of the deadlock, in report order.
func (d ReportedDeadlock) Names() []string {
	names := make([]string, len(d.Threads))
	for i, t := range d.Threads {
		names[i] = t.Name
	}
	return names
}

// parseReported reads the JVM's deadlock report from a dump's preamble
// lines (source: DeadlockCycle::print_on_with in HotSpot's
// threadService.cpp) and the N of "Found N deadlocks.".
//
// A thread name may hold line breaks (HotSpot prints it raw): a quote
// opened and not closed on its line goes on over the next lines.
func parseReported(lines []string) ([]ReportedDeadlock, int) {
	var out []ReportedDeadlock
	count := 0
	var cur *ReportedDeadlock
	// open is the start of a name whose quote is not closed yet, held is
	// true when it is a holder's name ("which is held by "…), else a
	// thread's ("…":).
	var open string
	var held bool
	for _, line := range lines {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(line, "Found ") {
			open = "" // a name never closed ends with its section
		}
		if open != "" && cur != nil {
			open += "\n" + line
			switch {
			case !held && strings.HasSuffix(line, `":`):
				cur.Threads = append(cur.Threads, ReportedThread{Name: open[1 : len(open)-2]})
				open = ""
			case held && strings.HasSuffix(line, `"`):
				cur.Threads[len(cur.Threads)-1].HeldBy = open[1 : len(open)-1]
				open = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "Found one Java-level deadlock"):
			out = append(out, ReportedDeadlock{})
			cur = &out[len(out)-1]
		case strings.HasPrefix(line, "Found "):
			// "Found 2 deadlocks.", "Found 1 deadlock.", "Found a total of 2 deadlocks."
			for _, f := range strings.Fields(line) {
				if n, err := strconv.Atoi(f); err == nil {
					count = n
				}
			}
			cur = nil
		case cur == nil:
		case strings.HasPrefix(line, `"`) && strings.HasSuffix(line, `":`):
			cur.Threads = append(cur.Threads, ReportedThread{Name: line[1 : len(line)-2]})
		case strings.HasPrefix(line, `"`):
			open, held = line, false
		case len(cur.Threads) == 0:
		case strings.HasPrefix(trim, "waiting "):
			t := &cur.Threads[len(cur.Threads)-1]
			t.Waiting = trim
			t.Addr = reportedAddr(trim)
			if _, h, ok := strings.Cut(trim, "which is held by "); ok {
				t.HeldBy = unquote(h)
			}
		case strings.Contains(trim, "which is held by "):
			_, h, _ := strings.Cut(trim, "which is held by ")
			if name := unquote(h); name != "" || !strings.HasPrefix(h, `"`) || strings.Count(h, `"`) > 1 {
				cur.Threads[len(cur.Threads)-1].HeldBy = name
			} else {
				open, held = h, true
			}
		}
	}
	return out, count
}

// reportedAddr finds the object address in a "waiting …" line:
// "(object 0x…, a X)" for monitors, "synchronizer 0x…," for ownable
// synchronizers.
func reportedAddr(s string) string {
	for _, marker := range []string{"(object ", "ownable synchronizer "} {
		if _, rest, ok := strings.Cut(s, marker); ok {
			end := strings.IndexAny(rest, ", )")
			if end < 0 {
				end = len(rest)
			}
			return rest[:end]
		}
	}
	return ""
}

// unquote returns the name between the quotes of `"name"`, or "" for an
// unknown holder (UNKNOWN_owner_addr=…).
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' {
		if end := strings.LastIndexByte(s, '"'); end > 0 {
			return s[1:end]
		}
	}
	return ""
}
