package formats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSniffKind(t *testing.T) {
	tests := []struct {
		in   string
		want Kind
	}{
		{"goroutine 1 [running]:\nmain.main()\n", KindGoTraceback},
		{"  goroutine 17 gp=0xc000 m=nil [idle]:\n", KindGoTraceback},
		{"2026-11-30 log line\npanic: boom\n\ngoroutine 1 [running]:\n", KindGoTraceback},
		{"==================\nWARNING: DATA RACE\nRead at 0x1 by goroutine 7:\n", KindGoTraceback},
		{"goroutine profile: total 3\n3 @ 0x1 0x2\n", KindGoDebug1},
		{"noise\ngoroutineleak profile: total 4\n", KindGoDebug1},
		{"2026-11-30 12:00:00\nFull thread dump OpenJDK 64-Bit Server VM (17.0.15+6):\n", KindJVMText},
		{`"main" #1 prio=5 os_prio=0 cpu=1.2ms tid=0x1 nid=0x2 waiting on condition` + "\n", KindJVMText},
		{`"Reference Handler" daemon prio=10 tid=0x1 nid=0x2` + "\n", KindJVMText},
		{`#23 "" virtual` + "\n", KindJVMText},
		{`"pool-1" Id=12 WAITING on x` + "\n", KindJVMText},
		{`"RMI" - Thread t@332` + "\n", KindJVMText},
		{"\tjava.lang.Thread.State: RUNNABLE\n", KindJVMText},
		{`{"threadDump":{"processId":"1"}}`, KindJVMJSON},
		{`{"format":"stackdump/v1","goroutines":[]}`, KindJSON},
		{"go 1.26 trace\x00\x00\x00", KindGoTrace},
		{"\x0a\x10\x08\x01\x00\x00binary", KindGoPprof},
		// The first marker decides; text without any is a Go traceback.
		{"goroutine 1 [running]:\n\"x\" #1 prio=5\n", KindGoTraceback},
		{"nothing to see\n", KindGoTraceback},
		{"goroutine profile: total x\n\"x\" daemon\n", KindJVMText},
		{`"quoted" but not a thread` + "\n", KindGoTraceback},
		{"goroutine x [running]:\n", KindGoTraceback},
	}
	for _, tt := range tests {
		if got := sniffKind([]byte(tt.in)); got != tt.want {
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
		want := KindGoTraceback
		switch name := filepath.Base(path); {
		case strings.Contains(name, "debug1"):
			want = KindGoDebug1
		case strings.Contains(name, "debug0"):
			want = KindGoPprof
		case strings.HasSuffix(name, ".json"):
			want = KindJVMJSON
		case strings.Contains(path, "/jvm/"):
			want = KindJVMText
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		in, err := openInput(f, ReadOptions{})
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
