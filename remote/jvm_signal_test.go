package remote

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// disabledAttachOptions writes a -XX:VMOptionsFile that turns the attach
// mechanism off and returns the java option that reads it: the flag is
// then on no command line and in no environment variable, as when a
// service's launcher script keeps its JVM options in a file.
func disabledAttachOptions(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "jvm.options")
	if err := os.WriteFile(file, []byte("-XX:+DisableAttachMechanism\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return "-XX:VMOptionsFile=" + file
}

// TestJVMCaptureAttachDisabled captures real JVMs whose attach mechanism
// is off, twice each, as watch would. A JVM that does not start its attach
// listener answers every SIGQUIT with a "Full thread dump" into its own
// standard output (the service's log), so the dumps there count the
// signals: at most one per capture, and jstack is never tried after jcmd,
// since it attaches the same way. Before the fix each capture of a JVM run
// with -XX:+DisableAttachMechanism -XX:-UsePerfData took 21 s and wrote
// 12 dumps (jcmd and jstack each signal six times in their 10.5 s wait).
//
//   - on the command line: refused before any signal, naming the flag;
//   - in an options file, perf data on: refused before any signal, since
//     the JVM's perf data says it does not support attach (what jcmd checks);
//   - in an options file, perf data off: nothing shows it before a signal,
//     so one SIGQUIT is sent; the JVM writes one dump and opens no socket,
//     and the error says so and where that dump went.
func TestJVMCaptureAttachDisabled(t *testing.T) {
	tests := []struct {
		name    string
		jvmArgs func(t *testing.T) []string
		timeout time.Duration
		dumps   [2]int      // written by each capture
		want    [2][]string // said by each capture's error
	}{
		{
			name:    "command line",
			jvmArgs: func(*testing.T) []string { return []string{"-XX:+DisableAttachMechanism", "-XX:-UsePerfData"} },
			timeout: 30 * time.Second,
			want: [2][]string{
				{"-XX:+DisableAttachMechanism (on its command line)", "no signal was sent", "kill -3 "},
				{"-XX:+DisableAttachMechanism (on its command line)", "no signal was sent", "kill -3 "},
			},
		},
		{
			name:    "options file, perf data",
			jvmArgs: func(t *testing.T) []string { return []string{disabledAttachOptions(t)} },
			timeout: 30 * time.Second,
			want: [2][]string{
				{"its HotSpot perf data says it does not support attach", "no signal was sent", "kill -3 "},
				{"its HotSpot perf data says it does not support attach", "no signal was sent", "kill -3 "},
			},
		},
		{
			// The second capture, as a watch's next round, is refused
			// without a signal: the first one's went unanswered.
			name:    "options file, no perf data",
			jvmArgs: func(t *testing.T) []string { return []string{disabledAttachOptions(t), "-XX:-UsePerfData"} },
			timeout: 3 * time.Second,
			dumps:   [2]int{1, 0},
			want: [2][]string{
				{"did not start its attach listener within ", "s of the one SIGQUIT stackdump sent", `"Full thread dump"`, "not retried"},
				{"did not start its attach listener after the SIGQUIT stackdump sent it at", "not signalled again", `"Full thread dump"`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := logTools(t)
			a := startAttachee(t, tt.jvmArgs(t)...)
			tg, _ := ParseTarget("jvm:"+strconv.Itoa(a.pid), "")
			for i, want := range tt.want {
				capture := i + 1
				before := a.dumps(t)
				start := time.Now()
				_, err := Open(context.Background(), tg, Options{Timeout: tt.timeout})
				took := time.Since(start)
				if err == nil {
					t.Fatalf("capture %d: a JVM with attach disabled gave a dump", capture)
				}
				for _, w := range append(want, "JVM "+strconv.Itoa(a.pid)+" (java ") {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("capture %d: err = %v\nwant it to say %q", capture, err, w)
					}
				}
				// The JVM's signal dispatcher writes the dump soon after
				// the signal, but on a loaded machine maybe after the
				// capture gave up: wait for an expected one, so that it is
				// not counted as the next capture's.
				for wait := time.Now().Add(30 * time.Second); a.dumps(t)-before < tt.dumps[i] && time.Now().Before(wait); {
					time.Sleep(10 * time.Millisecond)
				}
				if n := a.dumps(t) - before; n != tt.dumps[i] {
					t.Errorf("capture %d: the JVM wrote %d thread dumps into its standard output, want %d", capture, n, tt.dumps[i])
				}
				t.Logf("capture %d took %v, %d dump(s) in the JVM's stdout; error (as shown to users): %v", capture, took.Round(time.Millisecond), a.dumps(t)-before, err)
			}
			for _, run := range toolRuns(t, tools) {
				if strings.HasPrefix(run, "jstack") {
					t.Errorf("jstack was run (%q) after jcmd failed for a reason it shares", run)
				}
			}
			t.Logf("tools run: %q", toolRuns(t, tools))
		})
	}
}

// TestJVMCaptureTargetExits makes a real JVM exit in the middle of a
// capture: its attach mechanism is off (in an options file, perf data off),
// so it answers the capture's SIGQUIT with a thread dump, and as soon as
// that dump is in its standard output it is told to exit, and is reaped.
// The capture fails saying the JVM exited, and neither jstack nor a second
// jcmd is run at its PID, which the system may already have given to
// another process. Before the fix jcmd went on signalling and jstack was
// then run at the PID.
func TestJVMCaptureTargetExits(t *testing.T) {
	tools := logTools(t)
	a := startAttachee(t, disabledAttachOptions(t), "-XX:-UsePerfData")
	tg, _ := ParseTarget("jvm:"+strconv.Itoa(a.pid), "")
	done := make(chan error, 1)
	go func() {
		s, err := Open(context.Background(), tg, Options{Timeout: 30 * time.Second})
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for a.dumps(t) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no SIGQUIT reached the JVM within 30s:\n%s", a.output(t))
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.exit(t)
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the capture did not end within 60s of the JVM's exit")
	}
	if err == nil {
		t.Fatal("the capture of a JVM that exited gave a dump")
	}
	pid := strconv.Itoa(a.pid)
	for _, w := range []string{"JVM " + pid + " (java ", "exited during the capture", "nothing more was sent to PID " + pid} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v\nwant it to say %q", err, w)
		}
	}
	if n := a.dumps(t); n != 1 {
		t.Errorf("the JVM wrote %d thread dumps, want 1 (one SIGQUIT)", n)
	}
	for _, run := range toolRuns(t, tools) {
		if strings.HasPrefix(run, "jstack") || strings.HasPrefix(run, "jcmd") {
			t.Errorf("%q was run: no tool may attach to a JVM that never opened its attach socket and exited", run)
		}
	}
	t.Logf("error (as shown to users): %v; tools run: %q", err, toolRuns(t, tools))
}
