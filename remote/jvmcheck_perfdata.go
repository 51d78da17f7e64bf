package remote

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A JVM run with -XX:+DisableAttachMechanism never opens its attach
// socket: every SIGQUIT only makes it write a thread dump into its own
// standard output. Two things show the flag without a signal:
//
//   - the JVM's perf data (hsperfdata), whose sun.rt.jvmCapabilities
//     string starts with '0' when attach is off, however the flag was set
//     (jcmd and jstack check the same before they signal);
//   - with -XX:-UsePerfData there is no perf data, and only where the
//     flag was given is left: the JVM options of its command line, and
//     JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS and _JAVA_OPTIONS in its
//     environment (a flag in an options file or an @argfile is not seen).

// perfDataMax bounds how much of a perf-data file is read (HotSpot's
// default PerfDataMemorySize is 32 KiB).
const perfDataMax = 4 << 20

// perfDataAttachable reports whether the HotSpot perf-data file at path
// says its JVM supports attach (sun.rt.jvmCapabilities, as
// sun.jvmstat's MonitoredVmUtil.isAttachable reads it). An error means
// the file does not say.
func perfDataAttachable(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, perfDataMax))
	if err != nil {
		return false, err
	}
	v, err := perfDataString(b, "sun.rt.jvmCapabilities")
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if len(v) == 0 || (v[0] != '0' && v[0] != '1') {
		return false, fmt.Errorf("%s: sun.rt.jvmCapabilities is %.20q, want a string of 0 and 1", path, v)
	}
	return v[0] == '1', nil
}

// perfDataString returns the byte-array entry name of a perf-data buffer
// (PerfDataPrologue, then PerfDataEntry records; hotspot's perfMemory.hpp),
// cut at its first NUL.
func perfDataString(b []byte, name string) ([]byte, error) {
	const prologue = 32 // magic, byte order, versions, accessible, used, overflow, mod time, entry offset, entries
	if len(b) < prologue || !bytes.Equal(b[:4], []byte{0xca, 0xfe, 0xc0, 0xc0}) {
		return nil, errors.New("not a HotSpot perf-data file (no 0xcafec0c0 magic)")
	}
	var order binary.ByteOrder = binary.BigEndian
	if b[4] == 1 {
		order = binary.LittleEndian
	}
	off, n := int64(order.Uint32(b[24:])), int64(order.Uint32(b[28:]))
	for i := int64(0); i < n; i++ {
		if off < prologue || off+20 > int64(len(b)) {
			return nil, fmt.Errorf("perf-data entry %d at offset %d lies outside the %d-byte file", i, off, len(b))
		}
		e := b[off:]
		length := int64(int32(order.Uint32(e[0:])))
		nameOff := int64(int32(order.Uint32(e[4:])))
		vecLen := int64(int32(order.Uint32(e[8:])))
		dataType := e[12]
		dataOff := int64(int32(order.Uint32(e[16:])))
		if length < 20 || off+length > int64(len(b)) || nameOff < 20 || nameOff >= length {
			return nil, fmt.Errorf("perf-data entry %d at offset %d: length %d, name at %d: corrupt", i, off, length, nameOff)
		}
		entryName, _, _ := bytes.Cut(e[nameOff:length], []byte{0})
		if string(entryName) == name {
			if dataType != 'B' || vecLen <= 0 || dataOff < 20 || dataOff+vecLen > length {
				return nil, fmt.Errorf("perf-data entry %s is not a byte array inside its entry", name)
			}
			v, _, _ := bytes.Cut(e[dataOff:dataOff+vecLen], []byte{0})
			return v, nil
		}
		off += length
	}
	return nil, fmt.Errorf("no %s among its %d perf-data entries", name, n)
}

// attachDisabledFlag returns where pid's JVM options set
// -XX:+DisableAttachMechanism ("on its command line", "in its
// JAVA_TOOL_OPTIONS"), or "" when they do not (or a later
// -XX:-DisableAttachMechanism undoes it). The options are read in the
// order the JVM applies them: JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, the
// command line, _JAVA_OPTIONS.
func attachDisabledFlag(pid int) string {
	dir := filepath.Join(procRoot, strconv.Itoa(pid))
	env := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(dir, "environ")); err == nil {
		for _, kv := range bytes.Split(b, []byte{0}) {
			if k, v, ok := strings.Cut(string(kv), "="); ok {
				env[k] = v
			}
		}
	}
	var args []string
	if b, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
		args = strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	}
	sources := []struct {
		where string
		opts  []string
	}{
		{"in its JAVA_TOOL_OPTIONS", strings.Fields(env["JAVA_TOOL_OPTIONS"])},
		{"in its JDK_JAVA_OPTIONS", strings.Fields(env["JDK_JAVA_OPTIONS"])},
		{"on its command line", javaLauncherOptions(args)},
		{"in its _JAVA_OPTIONS", strings.Fields(env["_JAVA_OPTIONS"])},
	}
	where := ""
	for _, src := range sources {
		for _, o := range src.opts {
			switch o {
			case "-XX:+DisableAttachMechanism":
				where = src.where
			case "-XX:-DisableAttachMechanism":
				where = ""
			}
		}
	}
	return where
}

// javaValueOptions are the java launcher's options whose value is the next
// argument; -jar and -m (--module) end the JVM options after their value.
var javaValueOptions = map[string]bool{
	"-cp": true, "-classpath": true, "--class-path": true,
	"-p": true, "--module-path": true, "--upgrade-module-path": true,
	"--add-modules": true, "--limit-modules": true, "--enable-native-access": true,
	"--add-reads": true, "--add-exports": true, "--add-opens": true, "--patch-module": true,
	"--source": true, "-jar": true, "-m": true, "--module": true,
}

// javaLauncherOptions returns the JVM's options from the java launcher's
// command line args (the program first): those before the main class, the
// -jar file or the -m module. Later arguments are the program's own.
func javaLauncherOptions(args []string) []string {
	if len(args) < 2 {
		return nil
	}
	var opts []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			break // the main class (or a source file)
		}
		opts = append(opts, a)
		if javaValueOptions[a] {
			i++
			if a == "-jar" || a == "-m" || a == "--module" {
				break
			}
		}
	}
	return opts
}
