// LockScenarios parks threads in known lock states for thread dump tests:
// a monitor deadlock, a ReentrantLock deadlock, three threads blocked on a
// monitor held by a sleeping thread, a thread in Object.wait and a
// ReentrantLock with two parked waiters.
//
// It prints "ready <pid>" once every thread is in place, then:
//   java LockScenarios            waits until stdin closes (the test runs jcmd/jstack)
//   java LockScenarios threadinfo prints ThreadInfo.toString() of every thread and exits
//
// See testdata/gen/jvm/README.md for the commands that made the fixtures.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

public class LockScenarios {
    static final List<Thread> threads = new ArrayList<>();

    static void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
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

    static boolean settled() {
        for (Thread t : threads) {
            Thread.State s = t.getState();
            if (s == Thread.State.RUNNABLE || s == Thread.State.NEW) {
                return false;
            }
        }
        return true;
    }

    public static void main(String[] args) throws Exception {
        // Monitor deadlock.
        Object a = new Object(), b = new Object();
        CountDownLatch monitorsHeld = new CountDownLatch(2);
        start("monitor-1", () -> {
            synchronized (a) {
                monitorsHeld.countDown();
                await(monitorsHeld);
                synchronized (b) {
                    sleepForever();
                }
            }
        });
        start("monitor-2", () -> {
            synchronized (b) {
                monitorsHeld.countDown();
                await(monitorsHeld);
                synchronized (a) {
                    sleepForever();
                }
            }
        });

        // ReentrantLock deadlock.
        ReentrantLock l1 = new ReentrantLock(), l2 = new ReentrantLock();
        CountDownLatch locksHeld = new CountDownLatch(2);
        start("juc-1", () -> {
            l1.lock();
            locksHeld.countDown();
            await(locksHeld);
            l2.lock();
        });
        start("juc-2", () -> {
            l2.lock();
            locksHeld.countDown();
            await(locksHeld);
            l1.lock();
        });

        // Monitor contention: one holder, three blocked.
        Object hot = new Object();
        CountDownLatch hotHeld = new CountDownLatch(1);
        start("holder", () -> {
            synchronized (hot) {
                hotHeld.countDown();
                sleepForever();
            }
        });
        hotHeld.await();
        for (int i = 1; i <= 3; i++) {
            start("contender-" + i, () -> {
                synchronized (hot) {
                    sleepForever();
                }
            });
        }

        // ReentrantLock contention: one owner, two parked.
        ReentrantLock busy = new ReentrantLock();
        CountDownLatch busyHeld = new CountDownLatch(1);
        start("lock-owner", () -> {
            busy.lock();
            busyHeld.countDown();
            sleepForever();
        });
        busyHeld.await();
        for (int i = 1; i <= 2; i++) {
            start("lock-waiter-" + i, busy::lock);
        }

        // Object.wait: holds the monitor, releases it while waiting.
        Object cond = new Object();
        start("waiter", () -> {
            synchronized (cond) {
                try {
                    cond.wait();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }
        });

        while (!settled()) {
            Thread.sleep(10);
        }
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        if (args.length > 0 && args[0].equals("threadinfo")) {
            for (ThreadInfo ti : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                System.out.print(ti);
            }
            return;
        }
        while (System.in.read() >= 0) {
            // Keep running until the test closes stdin or kills the JVM.
        }
    }
}
