package formats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackdump/stackdump/internal/unpaste"
	"github.com/stackdump/stackdump/stack"
)

func TestSniffKind(t *testing.T) {
	tests := []struct {
		in   string
		want stack.Kind
	}{
		{"goroutine 1 [running]:\nmain.main()\n", stack.KindGoTraceback},
		{"  goroutine 17 gp=0xc000 m=nil [idle]:\n", stack.KindGoTraceback},
		{"2026-11-30 log line\npanic: boom\n\ngoroutine 1 [running]:\n", stack.KindGoTraceback},
		{"==================\nWARNING: DATA RACE\nRead at 0x1 by goroutine 7:\n", stack.KindGoTraceback},
		{"goroutine profile: total 3\n3 @ 0x1 0x2\n", stack.KindGoDebug1},
		{"noise\ngoroutineleak profile: total 4\n", stack.KindGoDebug1},
		{"2026-11-30 12:00:00\nFull thread dump OpenJDK 64-Bit Server VM (17.0.15+6):\n", stack.KindJVMText},
		{`"main" #1 prio=5 os_prio=0 cpu=1.2ms tid=0x1 nid=0x2 waiting on condition` + "\n", stack.KindJVMText},
		{`"Reference Handler" daemon prio=10 tid=0x1 nid=0x2` + "\n", stack.KindJVMText},
		{`#23 "" virtual` + "\n", stack.KindJVMText},
		{`"pool-1" Id=12 WAITING on x` + "\n", stack.KindJVMText},
		{`"RMI" - Thread t@332` + "\n", stack.KindJVMText},
		{"\tjava.lang.Thread.State: RUNNABLE\n", stack.KindJVMText},
		{`{"threadDump":{"processId":"1"}}`, stack.KindJVMJSON},
		{`{"format":"stackdump/v1","goroutines":[]}`, stack.KindJSON},
		{"go 1.26 trace\x00\x00\x00", stack.KindGoTrace},
		{"\x0a\x10\x08\x01\x00\x00binary", stack.KindGoPprof},
		// The first marker decides; text without any is a Go traceback.
		{"goroutine 1 [running]:\n\"x\" #1 prio=5\n", stack.KindGoTraceback},
		{"nothing to see\n", stack.KindGoTraceback},
		{"goroutine profile: total x\n\"x\" daemon\n", stack.KindJVMText},
		{`"quoted" but not a thread` + "\n", stack.KindGoTraceback},
		{"goroutine x [running]:\n", stack.KindGoTraceback},
	}
	for _, tt := range tests {
		if got, _ := sniffKind([]byte(tt.in)); got != tt.want {
			t.Errorf("sniffKind(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestSniffCorpus checks every corpus file is sniffed as what its
// directory and name say it is.
func TestSniffCorpus(t *testing.T) {
	files, _ := filepath.Glob("../testdata/corpus/*/*")
	if len(files) < 40 {
		t.Fatalf("found %d corpus files", len(files))
	}
	for _, path := range files {
		if fi, err := os.Stat(path); err != nil || fi.IsDir() || strings.HasSuffix(path, ".md") {
			continue
		}
		want := stack.KindGoTraceback
		switch name := filepath.Base(path); {
		case strings.Contains(name, "debug1"):
			want = stack.KindGoDebug1
		case strings.Contains(name, "debug0"):
			want = stack.KindGoPprof
		case strings.HasSuffix(name, ".json"):
			want = stack.KindJVMJSON
		case strings.Contains(path, "/jvm/"):
			want = stack.KindJVMText
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		in, _, err := openInput(f, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if in.Kind != want {
			t.Errorf("%s sniffed as %s, want %s", path, in.Kind, want)
		}
		f.Close()
	}
}

func BenchmarkSniffKind(b *testing.B) {
	head := []byte(strings.Repeat("2026-11-30T10:00:00Z INFO request served in 3ms path=/api/v1/items\n", 1000) + "goroutine 1 [running]:\n")
	head = head[:min(len(head), 64<<10)]
	b.SetBytes(int64(len(head)))
	for b.Loop() {
		sniffKind(head)
	}
}

// BenchmarkSniffFrame measures what every read of an input pays once: the
// paste-frame sniff of its first 64 KiB (here of a real debug=2 dump,
// testdata/go/demo_go126.txt, which has no frame).
func BenchmarkSniffFrame(b *testing.B) {
	dump, err := os.ReadFile(filepath.Join("..", "testdata", "go", "demo_go126.txt"))
	if err != nil {
		b.Fatal(err)
	}
	head := dump[:min(len(dump), 64<<10)]
	b.SetBytes(int64(len(head)))
	for b.Loop() {
		if f := unpaste.Sniff(head, textForms); f != nil {
			b.Fatalf("a frame sniffed in a clean dump: %+v", f)
		}
	}
}
