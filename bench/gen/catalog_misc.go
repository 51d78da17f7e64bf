package gen

// Syscalls, goroutines locked to their thread, deep recursions, CPU-bound
// goroutines and a few rarer waits.

var miscScenarios = []*scenario{
	{
		name: "exec-wait", state: "syscall", weight: 0.3, waits: minutes{0.5, 1, 60},
		parts: frames(fixed(`
syscall.Syscall6(0xf7, 0x3, $S, $A, 0x4, $B, 0x0)
	/usr/local/go/src/syscall/syscall_linux.go:96 +0x39
internal/syscall/unix.Waitid(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)
	/usr/local/go/src/internal/syscall/unix/waitid_linux.go:18 +0x39
os.(*Process).pidfdWait.func1(...)
	/usr/local/go/src/os/pidfd_linux.go:108
os.ignoringEINTR(...)
	/usr/local/go/src/os/file_posix.go:263
os.(*Process).pidfdWait($C)
	/usr/local/go/src/os/pidfd_linux.go:107 +0x1c7
os.(*Process).wait(0x0?)
	/usr/local/go/src/os/exec_unix.go:25 +0x1a
os.(*Process).Wait(...)
	/usr/local/go/src/os/exec.go:346
os/exec.(*Cmd).Wait($D)
	/usr/local/go/src/os/exec/exec.go:930 +0x45
os/exec.(*Cmd).Run($D)
	/usr/local/go/src/os/exec/exec.go:626 +0x6d
github.com/acme/shop/internal/images.(*Resizer).convert($E, {0x9c5a40, $P}, {$P, 0x38}, {$P, 0x3c})
	/src/shop/internal/images/convert.go:37 +0x2e5`)),
		creator: creator(workerCreator), parent: "main",
	},
	{
		name: "file-read", state: "syscall", weight: 0.3,
		parts: frames(fixed(`
syscall.Syscall(0x0, $S, $A, 0x8000)
	/usr/local/go/src/syscall/syscall_linux.go:74 +0x25
syscall.read($B?, {$A?, 0x0?, 0x0?})
	/usr/local/go/src/syscall/zsyscall_linux_amd64.go:736 +0x38
syscall.Read(...)
	/usr/local/go/src/syscall/syscall_unix.go:183
internal/poll.ignoringEINTRIO(...)
	/usr/local/go/src/internal/poll/fd_unix.go:738
internal/poll.(*FD).Read($B, {$A, 0x8000, 0x8000})
	/usr/local/go/src/internal/poll/fd_unix.go:161 +0x256
os.(*File).read(...)
	/usr/local/go/src/os/file_posix.go:29
os.(*File).Read($C, {$A?, 0x0?, 0x0?})
	/usr/local/go/src/os/file.go:144 +0x4f
io.copyBuffer({0x9c3c20, $D}, {0x9c3a60, $C}, {0x0, 0x0, 0x0})
	/usr/local/go/src/io/io.go:429 +0x191
io.Copy(...)
	/usr/local/go/src/io/io.go:388
github.com/acme/shop/internal/export.(*Job).stream($E, {0x9c3c20, $D})
	/src/shop/internal/export/job.go:112 +0x1a7`)),
		creator: creator(`
created by github.com/acme/shop/internal/export.(*Job).Start in goroutine $I
	/src/shop/internal/export/job.go:71 +0x29a`),
	},
	{
		name: "locked-netlink", state: "syscall", weight: 0.2, locked: true, waits: minutes{0.8, 1, 4000}, parent: "main",
		parts: frames(fixed(`
syscall.Syscall6(0x2d, $S, $A, 0x10000, 0x0, $B, $B)
	/usr/local/go/src/syscall/syscall_linux.go:96 +0x39
syscall.recvfrom(0x0?, {$A?, 0x0?, 0x0?}, 0x0?, 0x0?, 0x0?)
	/usr/local/go/src/syscall/zsyscall_linux_amd64.go:1208 +0x4d
syscall.Recvfrom(0x0?, {$A?, 0x0?, 0x0?}, 0x0?)
	/usr/local/go/src/syscall/syscall_unix.go:275 +0x65
github.com/acme/shop/internal/netmon.(*Monitor).receive($C)
	/src/shop/internal/netmon/monitor.go:95 +0x8f
github.com/acme/shop/internal/netmon.(*Monitor).run($C)
	/src/shop/internal/netmon/monitor.go:70 +0x58`)),
		creator: creator(`
created by github.com/acme/shop/internal/netmon.Start in goroutine $I
	/src/shop/internal/netmon/monitor.go:52 +0x1c5`),
	},
	{
		name: "locked-renderer", state: "chan receive", weight: 0.2, locked: true, waits: minutes{0.8, 1, 4000}, parent: "main",
		parts: frames(fixed(`
github.com/acme/shop/internal/render.(*Worker).run($A, $S)
	/src/shop/internal/render/worker.go:44 +0xa6`)),
		creator: creator(`
created by github.com/acme/shop/internal/render.NewPool in goroutine $I
	/src/shop/internal/render/worker.go:29 +0x10b`),
	},
	{
		name: "tree-walk", state: "chan send", weight: 1,
		parts: frames(fixed(`
github.com/acme/shop/internal/catalog.(*Node).emit(...)
	/src/shop/internal/catalog/tree.go:131
github.com/acme/shop/internal/catalog.(*Node).walk($P, $A)
	/src/shop/internal/catalog/tree.go:122 +0x8d`), repeat(`
github.com/acme/shop/internal/catalog.(*Node).walk($P, $A)
	/src/shop/internal/catalog/tree.go:126 +0x125`, 4, 180), fixed(`
github.com/acme/shop/internal/catalog.(*Tree).Walk.func1()
	/src/shop/internal/catalog/tree.go:96 +0x4b`)),
		creator: creator(`
created by github.com/acme/shop/internal/catalog.(*Tree).Walk in goroutine $I
	/src/shop/internal/catalog/tree.go:94 +0x12f`),
	},
	{
		name: "search-score", state: "runnable", weight: 0.5,
		parts: frames(fixed(`
github.com/acme/shop/internal/search.(*Index).score($A, {$P, 0x3, 0x4}, $B)
	/src/shop/internal/search/index.go:211 +0x2f4
github.com/acme/shop/internal/search.(*Index).Search($A, {0x9c5a40, $P}, {{$P, 0x9}, 0x0, 0x14, {0x0, 0x0, 0x0}})
	/src/shop/internal/search/index.go:160 +0x1e5
github.com/acme/shop/internal/search.(*Federated).Query.func1()
	/src/shop/internal/search/federated.go:71 +0x7b
golang.org/x/sync/errgroup.(*Group).Go.func1()
	/go/pkg/mod/golang.org/x/sync@v0.11.0/errgroup/errgroup.go:78 +0x50`)),
		creator: creator(`
created by golang.org/x/sync/errgroup.(*Group).Go in goroutine $I
	/go/pkg/mod/golang.org/x/sync@v0.11.0/errgroup/errgroup.go:75 +0x96`),
	},
	{
		name: "legacy-nil-chan", state: "chan receive (nil chan)", weight: 0.1, waits: minutes{1, 100, 4000}, parent: "main",
		parts: frames(fixed(`
github.com/acme/shop/internal/legacy.(*Poller).run($A)
	/src/shop/internal/legacy/poller.go:58 +0x29`)),
		creator: creator(`
created by github.com/acme/shop/internal/legacy.NewPoller in goroutine $I
	/src/shop/internal/legacy/poller.go:31 +0x14f`),
	},
}
