package remote

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestJVMAttachFlagSources starts real JVMs with -XX:±DisableAttachMechanism
// given where stackdump looks without perf data (-XX:-UsePerfData): in
// JAVA_TOOL_OPTIONS, attach is off and the capture is refused naming it,
// without a signal; on the command line but undone by _JAVA_OPTIONS, which
// the JVM applies last, attach is on and the capture works, without a dump
// in the JVM's log.
func TestJVMAttachFlagSources(t *testing.T) {
	a := startAttacheeEnv(t, []string{"JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"}, "-XX:-UsePerfData")
	tg, _ := ParseTarget("jvm:"+strconv.Itoa(a.pid), "")
	_, err := Open(context.Background(), tg, Options{Timeout: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "-XX:+DisableAttachMechanism (in its JAVA_TOOL_OPTIONS)") {
		t.Errorf("JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism: err = %v, want it named", err)
	}
	if n := a.dumps(t); n != 0 {
		t.Errorf("JAVA_TOOL_OPTIONS: the JVM wrote %d thread dumps, want none", n)
	}

	b := startAttacheeEnv(t, []string{"_JAVA_OPTIONS=-XX:-DisableAttachMechanism"}, "-XX:+DisableAttachMechanism", "-XX:-UsePerfData")
	s := captureAttachee(t, b, Options{Timeout: 30 * time.Second})
	t.Logf("command line undone by _JAVA_OPTIONS: captured through %s", s.URL)
	if n := b.dumps(t); n != 0 {
		t.Errorf("_JAVA_OPTIONS: the JVM wrote %d thread dumps, want none", n)
	}
}

// TestJavaLauncherOptions reads the JVM options off java command lines:
// those before the main class, the -jar file or the -m module; later
// arguments are the program's.
func TestJavaLauncherOptions(t *testing.T) {
	tests := []struct {
		cmdline string
		want    []string
	}{
		{"java -Xmx1g -XX:+DisableAttachMechanism -cp a.jar:b.jar Main -XX:-DisableAttachMechanism",
			[]string{"-Xmx1g", "-XX:+DisableAttachMechanism", "-cp"}},
		{"/opt/jdk/bin/java -jar app.jar -XX:+DisableAttachMechanism", []string{"-jar"}},
		{"java --module-path mods -m app/app.Main -XX:+DisableAttachMechanism", []string{"--module-path", "-m"}},
		{"java -Dx=y --add-opens=java.base/java.lang=ALL-UNNAMED -XX:+DisableAttachMechanism org.apache.catalina.startup.Bootstrap start",
			[]string{"-Dx=y", "--add-opens=java.base/java.lang=ALL-UNNAMED", "-XX:+DisableAttachMechanism"}},
		{"java", nil},
	}
	for _, tt := range tests {
		if got := javaLauncherOptions(strings.Fields(tt.cmdline)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: options %q, want %q", tt.cmdline, got, tt.want)
		}
	}
}

// TestPerfDataCapabilities reads sun.rt.jvmCapabilities from the perf-data
// file of a real JVM (attach supported), then from every prefix of it and
// from copies with one byte changed, as a file cut or overwritten would
// be: each gives an answer or an error, never a panic, and a cut file
// never claims attach is off.
func TestPerfDataCapabilities(t *testing.T) {
	a := startAttachee(t)
	p, err := inspectJVM(a.pid)
	if err != nil {
		t.Fatal(err)
	}
	if p.perfData == "" {
		t.Skip("the JVM maps no perf-data file")
	}
	real, err := os.ReadFile(p.perfData)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := perfDataAttachable(p.perfData); err != nil || !ok {
		t.Fatalf("perf data of a JVM with attach on: attachable = %v, %v; want true", ok, err)
	}
	v, err := perfDataString(real, "sun.rt.jvmCapabilities")
	if err != nil {
		t.Fatal(err)
	}
	used := bytes.Index(real, v) + len(v) // the entry's end, about
	for n := 0; n <= used+64 && n <= len(real); n++ {
		got, err := perfDataString(real[:n], "sun.rt.jvmCapabilities")
		if err == nil && len(got) > 0 && got[0] == '0' {
			t.Fatalf("perf data cut at %d bytes: capabilities %q, want an error or attach on", n, got)
		}
	}
	buf := make([]byte, used+64)
	for i := range min(len(buf), len(real)) {
		copy(buf, real)
		buf[i] ^= 0xff
		perfDataString(buf, "sun.rt.jvmCapabilities") // must not panic
	}
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not perf data"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := perfDataAttachable(junk); err == nil || !strings.Contains(err.Error(), "not a HotSpot perf-data file") {
		t.Errorf("a file that is not perf data: err = %v", err)
	}
}
