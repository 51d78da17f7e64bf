package jvm_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/stackdump/stackdump/formats"
	"github.com/stackdump/stackdump/formats/jvm"
	"github.com/stackdump/stackdump/stack"
)

const benchJVMThreads = 100_000

var (
	benchJVMTextOnce, benchJVMJSONOnce sync.Once
	benchJVMText, benchJVMJSON         []byte
)

// genJVMText builds a jstack dump of n threads by cycling through the
// threads of real dumps (JDK 6 to 25 shapes, with locks, synchronizers and
// mounted virtual threads), renumbered and renamed so that every header
// differs, and writing it with the jstack encoder.
func genJVMText(tb testing.TB, n int) []byte {
	var pool []*stack.Routine
	for _, name := range []string{
		"local_jdk17.0.15-jcmd-Thread.print-l-e.txt",
		"jthreaddump_complex_extended_jdk25.txt",
		"jthreaddump_virtual_threads_jdk25.txt",
		"tda_jdk6_server.log",
		"tda_jdk8.log",
	} {
		for _, d := range readJVMFile(tb, filepath.Join("..", "..", "testdata", "corpus", "jvm", name)) {
			for _, r := range d.Routines {
				if !r.Thread.Virtual { // mounted ones are written with their carrier
					pool = append(pool, r)
				}
			}
		}
	}
	dump := &stack.Dump{Source: stack.Source{Kind: stack.KindJVMText, Runtime: "OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing)"}}
	for i := 0; len(dump.Routines) < n; i++ {
		src := pool[i%len(pool)]
		r := *src
		th := *src.Thread
		r.Thread, r.ID, r.Name = &th, int64(len(dump.Routines)+1), src.Name+"-"+strconv.Itoa(i)
		th.OSID = int64(100000 + i)
		dump.Routines = append(dump.Routines, &r)
	}
	var out bytes.Buffer
	if err := stack.WriteDump(jvm.NewEncoder(&out), dump); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

// genJVMJSON builds a Thread.dump_to_file JSON dump of n threads from the
// thread objects of the JSON fixtures (JDK 21 and 25 shapes).
func genJVMJSON(tb testing.TB, n int) []byte {
	var pool []gjson.Result
	for _, path := range jvmCorpusJSON(tb) {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		gjson.GetBytes(data, "threadDump.threadContainers.#.threads|@flatten").ForEach(func(_, th gjson.Result) bool {
			pool = append(pool, th)
			return true
		})
	}
	var b bytes.Buffer
	b.WriteString(`{"threadDump":{"processId":"4242","time":"2026-01-05T06:31:54.840112Z","runtimeVersion":"25.0.1+8-LTS","threadContainers":[{"container":"<root>","parent":null,"owner":null,"threads":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"tid":"`)
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(`","name":"worker-`)
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('"')
		pool[i%len(pool)].ForEach(func(k, v gjson.Result) bool {
			if k.Str != "tid" && k.Str != "name" {
				b.WriteString(`,"`)
				b.WriteString(k.Str)
				b.WriteString(`":`)
				b.WriteString(v.Raw)
			}
			return true
		})
		b.WriteByte('}')
	}
	b.WriteString("]}]}}\n")
	return b.Bytes()
}

// benchRead streams every routine of data and reports bytes per second.
func benchRead(b *testing.B, data []byte, want int) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rd := formats.NewReader(bytes.NewReader(data), formats.ReadOptions{})
		n := 0
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			for r, err := range rd.Routines() {
				if err != nil || r == nil {
					b.Fatalf("routine %d: %v", n, err)
				}
				n++
			}
		}
		if n < want {
			b.Fatalf("read %d threads, want at least %d", n, want)
		}
	}
}

// BenchmarkReadJVMText reads a generated 100,000-thread jstack dump.
func BenchmarkReadJVMText(b *testing.B) {
	benchJVMTextOnce.Do(func() { benchJVMText = genJVMText(b, benchJVMThreads) })
	benchRead(b, benchJVMText, benchJVMThreads)
}

// BenchmarkReadJVMJSON reads a generated 100,000-thread JSON dump.
func BenchmarkReadJVMJSON(b *testing.B) {
	benchJVMJSONOnce.Do(func() { benchJVMJSON = genJVMJSON(b, benchJVMThreads) })
	benchRead(b, benchJVMJSON, benchJVMThreads)
}

// BenchmarkWriteJVMText writes 100,000 threads in jstack form.
func BenchmarkWriteJVMText(b *testing.B) {
	benchJVMTextOnce.Do(func() { benchJVMText = genJVMText(b, benchJVMThreads) })
	dumps, err := formats.ReadAll(bytes.NewReader(benchJVMText), formats.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchJVMText)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := stack.WriteDump(jvm.NewEncoder(io.Discard), dumps[0]); err != nil {
			b.Fatal(err)
		}
	}
}
