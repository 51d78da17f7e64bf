package livechild

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// StartJava compiles testdata/gen/jvm/CLASS.java and runs it until the
// test ends (standard input closed, then killed), and returns it once it
// printed "ready PID". It skips the test when no JDK is installed.
func StartJava(ctx context.Context, t testing.TB, class string) *Program {
	t.Helper()
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("javac is not installed: the live JVM tests need a JDK")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatalf("javac is installed but java is not: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(repoRoot(t), "testdata", "gen", "jvm", class+".java")
	if out, err := exec.CommandContext(ctx, javac, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m", "-cp", dir, class)
	p := run(ctx, t, cmd)
	line := p.readLine(t, class)
	pid, ok := strings.CutPrefix(line, "ready ")
	if !ok {
		t.Fatalf("%s did not say it is ready: %q", class, line)
	}
	p.PID = pid
	return p
}
