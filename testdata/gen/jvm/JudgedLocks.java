// JudgedLocks is the sick JVM of the judged set (internal/judged): its
// threads are in known lock states, written down from this code in
// testdata/judged/jvm-locks.json.
//
//   - "dl-mon-1" and "dl-mon-2" deadlock on two monitors, each holding
//     the one the other wants; "behind-dl" waits for the first of them
//     (held by a deadlocked thread: it can never get it).
//   - "dl-rl-1" and "dl-rl-2" deadlock on two ReentrantLocks.
//   - "pile-holder" holds a monitor and sleeps; "pile-1" to "pile-30" are
//     BLOCKED entering it.
//   - "rl-holder" holds a ReentrantLock and sleeps; "rl-wait-1" to
//     "rl-wait-10" are parked acquiring it.
//   - "waiter-1" to "waiter-20" are in Object.wait on one monitor;
//     "notifier" wakes one of them every 20ms, which waits again: waiting
//     for work, never blocked.
//   - "spinner" computes without pause.
//   - "worker-1" to "worker-8" are an idle ThreadPoolExecutor's workers.
//
// It prints "ready <pid>" once every thread is in place, answers each
// "next" line on stdin with "phase N", and exits when stdin closes.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

public class JudgedLocks {
    static final List<Thread> threads = new ArrayList<>();
    static volatile long sink;

    static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    static void sleepForever() {
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    static void waitState(Thread t, Thread.State want) throws InterruptedException {
        while (t.getState() != want) {
            Thread.sleep(5);
        }
    }

    static void lockBoth(Object first, Object second, CountDownLatch held) {
        synchronized (first) {
            held.countDown();
            await(held);
            synchronized (second) {
                sink++;
            }
        }
    }

    static void lockBoth(ReentrantLock first, ReentrantLock second, CountDownLatch held) {
        first.lock();
        try {
            held.countDown();
            await(held);
            second.lock();
            second.unlock();
        } finally {
            first.unlock();
        }
    }

    static void holdAndSleep(Object monitor, CountDownLatch held) {
        synchronized (monitor) {
            held.countDown();
            sleepForever();
        }
    }

    static void enter(Object monitor) {
        synchronized (monitor) {
            sink++;
        }
    }

    static void holdAndSleep(ReentrantLock lock, CountDownLatch held) {
        lock.lock();
        held.countDown();
        sleepForever();
    }

    static void acquire(ReentrantLock lock) {
        lock.lock();
        lock.unlock();
    }

    static void waitForWork(Object queue) {
        synchronized (queue) {
            while (true) {
                try {
                    queue.wait();
                } catch (InterruptedException e) {
                    return;
                }
                sink++;
            }
        }
    }

    static void notifyEvery20ms(Object queue) {
        while (true) {
            synchronized (queue) {
                queue.notify();
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static long spin() {
        long x = 1;
        while (true) {
            for (int i = 0; i < 1_000_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            sink = x;
        }
    }

    public static void main(String[] args) throws Exception {
        Object monA = new Object(), monB = new Object();
        CountDownLatch monHeld = new CountDownLatch(2);
        Thread dlMon1 = start("dl-mon-1", () -> lockBoth(monA, monB, monHeld));
        Thread dlMon2 = start("dl-mon-2", () -> lockBoth(monB, monA, monHeld));
        waitState(dlMon1, Thread.State.BLOCKED);
        waitState(dlMon2, Thread.State.BLOCKED);
        Thread behind = start("behind-dl", () -> enter(monA));

        ReentrantLock rlA = new ReentrantLock(), rlB = new ReentrantLock();
        CountDownLatch rlHeld = new CountDownLatch(2);
        start("dl-rl-1", () -> lockBoth(rlA, rlB, rlHeld));
        start("dl-rl-2", () -> lockBoth(rlB, rlA, rlHeld));

        Object pile = new Object();
        CountDownLatch pileHeld = new CountDownLatch(1);
        start("pile-holder", () -> holdAndSleep(pile, pileHeld));
        await(pileHeld);
        for (int i = 1; i <= 30; i++) {
            start("pile-" + i, () -> enter(pile));
        }

        ReentrantLock rl = new ReentrantLock();
        CountDownLatch rlHolderHeld = new CountDownLatch(1);
        start("rl-holder", () -> holdAndSleep(rl, rlHolderHeld));
        await(rlHolderHeld);
        for (int i = 1; i <= 10; i++) {
            start("rl-wait-" + i, () -> acquire(rl));
        }

        Object queue = new Object();
        for (int i = 1; i <= 20; i++) {
            start("waiter-" + i, () -> waitForWork(queue));
        }
        start("notifier", () -> notifyEvery20ms(queue));
        start("spinner", JudgedLocks::spin);

        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(8, 8, 1, TimeUnit.HOURS, new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "worker-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.prestartAllCoreThreads();

        waitState(behind, Thread.State.BLOCKED);
        for (Thread t : threads) {
            String name = t.getName();
            if (name.startsWith("pile-") && !name.equals("pile-holder")) {
                waitState(t, Thread.State.BLOCKED);
            }
            if (name.startsWith("dl-rl-") || name.startsWith("rl-wait-")) {
                waitState(t, Thread.State.WAITING);
            }
        }
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int phase = 0;
        for (String line; (line = in.readLine()) != null; ) {
            System.out.println("phase " + ++phase);
            System.out.flush();
        }
    }
}
