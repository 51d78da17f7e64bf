package report

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"
)

// reportSpawner starts n reportChild goroutines and waits: their dump
// says "created by …reportSpawner in goroutine N" with N its own id.
func reportSpawner(n int, ch chan struct{}, started chan<- struct{}) {
	for range n {
		go reportChild(ch)
	}
	started <- struct{}{}
	<-ch
}

func reportChild(ch chan struct{}) { <-ch }

// stackDump returns runtime.Stack of every goroutine once want of them
// are blocked in reportChild.
func stackDump(t *testing.T, want int) []byte {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.Stack(buf, true)
		if bytes.Count(buf[:n], []byte(".reportChild(")) == want && bytes.Count(buf[:n], []byte("[chan receive")) >= want+1 {
			return buf[:n]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the goroutines never all parked:\n%s", buf[:n])
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLiveCreatorLinks(t *testing.T) {
	ch := make(chan struct{})
	defer close(ch)
	started := make(chan struct{})
	go reportSpawner(6, ch, started)
	<-started
	inputs, err := Read(bytes.NewReader(stackDump(t, 6)), "live.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	doc := pageData(t, writeReport(t, inputs, Options{}))
	in := doc.Inputs[0]
	find := func(suffix string) int {
		for i, g := range in.Groups {
			for _, f := range g.Stack {
				if strings.HasSuffix(doc.Strings[doc.Frames[f][0]], suffix) {
					return i
				}
			}
		}
		t.Fatalf("no group runs %s", suffix)
		return -1
	}
	spawner, children := find(".reportSpawner"), find(".reportChild")
	g := in.Groups[children]
	if g.Count != 6 || g.Creator == nil || !strings.HasSuffix(doc.Strings[doc.Frames[*g.Creator][0]], ".reportSpawner") {
		t.Fatalf("children group: %d members, creator %v", g.Count, g.Creator)
	}
	if len(g.Parents) != 1 || len(g.ParentGroups) != 1 || g.ParentGroups[0] != spawner {
		t.Errorf("children: parents %v in groups %v, want the spawner's group %d", g.Parents, g.ParentGroups, spawner)
	}
	if ids := in.Groups[spawner].IDs; len(ids) != 1 || ids[0] != g.Parents[0] {
		t.Errorf("spawner ids %v, children's parent %v", ids, g.Parents)
	}
}
