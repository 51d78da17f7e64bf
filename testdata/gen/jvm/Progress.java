// Progress is the live JVM program of the timeline tests of progress: its
// threads move in known ways between thread dumps.
//
//   - "parked-1" and "parked-2" park forever from the start: stuck in
//     every dump.
//   - "late-waiter" sleeps in a loop in beforeWait until the first "next"
//     command, then waits forever in Object.wait in waitAfterFirst (as
//     Ant's main thread waits on a child process): stuck from the second
//     dump on.
//   - "spinner" computes without pause in one frame: its cpu= rises, it
//     is busy, not stuck.
//   - "ticker" works a little, then sleeps, in tick, over and over: the
//     same state and stack in every dump, but its cpu= rises (as a Tomcat
//     worker between requests): not stuck.
//   - "pool-worker-1" to "pool-worker-3" are a ThreadPoolExecutor's
//     workers, started as Tomcat starts its own (the task wrapped in the
//     program's code), idle in getTask; the first "next" gives each a
//     short task (their cpu= rises), later ones none: idle pool workers,
//     housekeeping from the second dump on.
//
// It prints "ready <pid>" once every thread runs, answers each "next"
// line on stdin with "phase N" once it took effect, and exits when stdin
// closes. See testdata/gen/jvm/README.md.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class Progress {
    static volatile long sink;
    static volatile boolean moved;
    static final Object forever = new Object();

    static long work(long x, int n) {
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    static void spin() {
        long x = 1;
        while (true) {
            x = work(x, 1_000_000);
            sink = x;
        }
    }

    static void tick() {
        long x = 1;
        while (true) {
            x = work(x, 200_000);
            sink = x;
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static void parkForever() {
        while (true) {
            LockSupport.park();
        }
    }

    static void beforeWait() throws InterruptedException {
        while (!moved) {
            Thread.sleep(5);
        }
    }

    static void waitAfterFirst() throws InterruptedException {
        synchronized (forever) {
            while (true) {
                forever.wait();
            }
        }
    }

    static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch started = new CountDownLatch(5);
        daemon("spinner", () -> { started.countDown(); spin(); });
        daemon("ticker", () -> { started.countDown(); tick(); });
        for (int i = 1; i <= 2; i++) {
            daemon("parked-" + i, () -> { started.countDown(); parkForever(); });
        }
        Thread late = daemon("late-waiter", () -> {
            started.countDown();
            try {
                beforeWait();
                waitAfterFirst();
            } catch (InterruptedException e) {
            }
        });
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(3, 3, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(() -> r.run(), "pool-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.prestartAllCoreThreads();
        started.await();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        for (int phase = 1; (line = in.readLine()) != null; phase++) {
            if (!line.equals("next")) {
                System.err.println("unknown command " + line);
                System.exit(2);
            }
            if (phase == 1) {
                moved = true;
                while (late.getState() != Thread.State.WAITING) {
                    Thread.sleep(1);
                }
                // One task per worker: each waits until all three run.
                CountDownLatch running = new CountDownLatch(3);
                Future<?>[] tasks = new Future<?>[3];
                for (int i = 0; i < tasks.length; i++) {
                    tasks[i] = pool.submit(() -> {
                        running.countDown();
                        try {
                            running.await();
                        } catch (InterruptedException e) {
                        }
                        sink = work(sink, 2_000_000);
                    });
                }
                for (Future<?> f : tasks) {
                    f.get();
                }
            }
            System.out.println("phase " + phase);
            System.out.flush();
        }
    }
}
