//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/hex"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackdump/stackdump/goproc"
	"github.com/stackdump/stackdump/internal/ptrace"
	"github.com/stackdump/stackdump/remote"
)

// listGoProcesses lists the Go processes of /proc that this one may read,
// but itself.
func listGoProcesses(ctx context.Context, probe bool) ([]psProcess, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	selfNetNS, _ := os.Readlink("/proc/self/ns/net")
	sockets := map[string]map[uint64]netip.AddrPort{} // listening sockets by network namespace
	var procs []psProcess
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := ptrace.Check("", pid); err != nil {
			continue // another user's, a zombie, traced: not ours to read
		}
		dir := filepath.Join("/proc", e.Name())
		bi, err := buildinfo.ReadFile(filepath.Join(dir, "exe"))
		if err != nil {
			continue // not Go, or gone
		}
		st, _ := ptrace.ReadProcess("", pid)
		p := psProcess{PID: pid, PPID: st.PPid, GoVersion: bi.GoVersion, Module: bi.Main.Path, ModuleVersion: bi.Main.Version, Goroutines: -1}
		p.Command = commandLine(dir, st.Name)
		p.Exe, _ = os.Readlink(filepath.Join(dir, "exe"))

		var bin *goproc.Binary
		if f, err := os.Open(filepath.Join(dir, "exe")); err == nil {
			bin, err = goproc.OpenBinary(f)
			f.Close()
			if err != nil {
				p.CountError = err.Error()
			}
		}
		if bin != nil {
			if n, err := countGoroutines(pid, bin); err != nil {
				p.CountError = err.Error()
			} else {
				p.Goroutines = n
			}
		}

		netns, _ := os.Readlink(filepath.Join(dir, "ns", "net"))
		if sockets[netns] == nil {
			sockets[netns] = listeningSockets(dir)
		}
		p.OtherNetNS = netns != selfNetNS
		for _, ap := range socketsOf(dir, sockets[netns]) {
			p.Listening = append(p.Listening, ap.String())
		}
		slices.Sort(p.Listening)
		p.Listening = slices.Compact(p.Listening)
		p.Serves = serves(ctx, dir, pid, bin, p, probe)
		procs = append(procs, p)
	}
	return procs, nil
}

// countGoroutines counts process pid's goroutines from its memory.
func countGoroutines(pid int, bin *goproc.Binary) (int, error) {
	bias, err := goproc.LoadBias(pid, bin)
	if err != nil {
		return 0, err
	}
	return goproc.Count(bin, goproc.NewProcessMemory(pid), bias)
}

// commandLine is the process's command line, or its name.
func commandLine(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, "cmdline"))
	if err != nil || len(b) == 0 {
		return name
	}
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

// listeningSockets reads the listening TCP sockets of the network
// namespace of the process at dir (/proc/PID/net/tcp and tcp6), by inode.
func listeningSockets(dir string) map[uint64]netip.AddrPort {
	m := map[uint64]netip.AddrPort{}
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(dir, "net", name))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // TCP_LISTEN
				continue
			}
			ap, ok := parseProcNetAddr(fields[1])
			inode, err := strconv.ParseUint(fields[9], 10, 64)
			if ok && err == nil && inode != 0 {
				m[inode] = ap
			}
		}
		f.Close()
	}
	return m
}

// parseProcNetAddr parses a /proc/net/tcp address: the IP as 32-bit words
// in hex, each in the host's (little-endian) byte order, a colon, the
// port in hex.
func parseProcNetAddr(s string) (netip.AddrPort, bool) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, false
	}
	raw, err := hex.DecodeString(ipHex)
	port, perr := strconv.ParseUint(portHex, 16, 16)
	if err != nil || perr != nil || len(raw)%4 != 0 {
		return netip.AddrPort{}, false
	}
	for i := 0; i < len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	ip, ok := netip.AddrFromSlice(raw)
	if !ok {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(ip.Unmap(), uint16(port)), true
}

// socketsOf returns the listening sockets among the process's file
// descriptors (links socket:[INODE]).
func socketsOf(dir string, listening map[uint64]netip.AddrPort) []netip.AddrPort {
	fds, err := os.ReadDir(filepath.Join(dir, "fd"))
	if err != nil {
		return nil
	}
	var out []netip.AddrPort
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, "fd", fd.Name()))
		if err != nil {
			continue
		}
		v, ok := strings.CutPrefix(link, "socket:[")
		if !ok {
			continue
		}
		inode, err := strconv.ParseUint(strings.TrimSuffix(v, "]"), 10, 64)
		if ap, found := listening[inode]; err == nil && found {
			out = append(out, ap)
		}
	}
	return out
}

// serves finds what serves the process's goroutines besides pid:: a gops
// agent (its port file), net/http/pprof and stackdump's endpoint (one
// HEAD request each to its listening ports, when it links them).
func serves(ctx context.Context, dir string, pid int, bin *goproc.Binary, p psProcess, probe bool) []psServes {
	var out []psServes
	gopsPort := gopsPortOf(dir, pid)
	for _, l := range p.Listening {
		ap := netip.MustParseAddrPort(l)
		if gopsPort != 0 && ap.Port() == gopsPort {
			out = append(out, psServes{Kind: "gops", Target: "gops://" + reachable(ap).String()})
		}
	}
	if !probe || p.OtherNetNS || bin == nil {
		return out
	}
	pprof := bin.Links("net/http/pprof.Index")
	endpoint := bin.Links("github.com/stackdump/stackdump/dumper.Handler")
	if !pprof && !endpoint {
		return out
	}
	client := &http.Client{Timeout: 300 * time.Millisecond, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer client.CloseIdleConnections()
	for _, l := range p.Listening {
		ap := reachable(netip.MustParseAddrPort(l))
		if gopsPort != 0 && ap.Port() == gopsPort {
			continue
		}
		base := "http://" + ap.String()
		if endpoint && head(ctx, client, base+remote.DefaultEndpointPath) {
			out = append(out, psServes{Kind: "endpoint", Target: base + remote.DefaultEndpointPath})
		}
		if pprof && head(ctx, client, base+"/debug/pprof/") {
			out = append(out, psServes{Kind: "pprof", Target: base})
		}
	}
	return out
}

// reachable is the address to reach a listening socket at from here: a
// wildcard address is reached on loopback.
func reachable(ap netip.AddrPort) netip.AddrPort {
	switch {
	case ap.Addr().IsUnspecified() && ap.Addr().Is4():
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port())
	case ap.Addr().IsUnspecified():
		return netip.AddrPortFrom(netip.IPv6Loopback(), ap.Port())
	}
	return ap
}

// head reports whether a HEAD request of url is answered 200 (or 403: an
// endpoint that authorizes its callers).
func head(ctx context.Context, c *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	if err != nil {
		return false
	}
	req.Header.Set("User-Agent", "stackdump-ps")
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusForbidden
}

// gopsPortOf reads the port a gops agent of process pid wrote in its
// config directory ($GOPS_CONFIG_DIR, else $XDG_CONFIG_HOME/gops, else
// $HOME/.config/gops, in the process's environment and filesystem), 0
// when none.
func gopsPortOf(dir string, pid int) uint16 {
	env := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(dir, "environ")); err == nil {
		for _, kv := range bytes.Split(b, []byte{0}) {
			if k, v, ok := strings.Cut(string(kv), "="); ok {
				env[k] = v
			}
		}
	}
	var cfg string
	switch {
	case env["GOPS_CONFIG_DIR"] != "":
		cfg = env["GOPS_CONFIG_DIR"]
	case env["XDG_CONFIG_HOME"] != "":
		cfg = filepath.Join(env["XDG_CONFIG_HOME"], "gops")
	case env["HOME"] != "":
		cfg = filepath.Join(env["HOME"], ".config", "gops")
	default:
		return 0
	}
	b, err := os.ReadFile(filepath.Join(dir, "root", cfg, strconv.Itoa(pid)))
	if err != nil {
		return 0
	}
	port, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 16)
	if err != nil {
		return 0
	}
	return uint16(port)
}
