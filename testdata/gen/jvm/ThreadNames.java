// ThreadNames starts sleeping daemon threads with names a dump reader can
// stumble on: spaces, quotes, non-ASCII, a 3000-character name, names that
// look like other dump lines, line breaks, an empty name, plus a monitor
// deadlock between two threads with quotes and a colon in their names, and
// a ReentrantLock deadlock between two whose names hold line breaks.
//
// It prints "ready <pid>" once every thread is in place and waits until
// stdin closes. See testdata/gen/jvm/README.md for the fixture it made.
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

public class ThreadNames {
    static final String[] NAMES = {
        "with space",
        "with \"quote\" inside",
        "ünïcödé 日本語",
        "x".repeat(3000),
        "   java.lang.Thread.State: RUNNABLE",
        "Found one Java-level deadlock:",
        "line1\nline2",
        "three\nline\nname",
        "ends in a break\n",
        "",
        "trailing space ",
        "\tat fake.Frame.method(Fake.java:1)",
        "\"fake\" #99 daemon prio=5 os_prio=0 cpu=0.00ms elapsed=1.00s tid=0x0 nid=0x1 waiting on condition  [0x0]",
        "ends in a quote\"",
        "\" #7 \" #8",
    };

    static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch sleeping = new CountDownLatch(NAMES.length);
        for (String name : NAMES) {
            daemon(name, () -> {
                sleeping.countDown();
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
        }
        Object a = new Object(), b = new Object();
        CountDownLatch held = new CountDownLatch(2);
        Thread d1 = daemon("dead \"one\"", () -> lockBoth(a, b, held));
        Thread d2 = daemon("dead: two", () -> lockBoth(b, a, held));
        // A ReentrantLock deadlock between names with line breaks: plain
        // jstack names their owners only in the JVM's deadlock report.
        ReentrantLock x = new ReentrantLock(), y = new ReentrantLock();
        CountDownLatch locked = new CountDownLatch(2);
        Thread j1 = daemon("juc\n\"one\"", () -> lockBoth(x, y, locked));
        Thread j2 = daemon("juc:\ntwo", () -> lockBoth(y, x, locked));
        sleeping.await();
        while (d1.getState() != Thread.State.BLOCKED || d2.getState() != Thread.State.BLOCKED
                || j1.getState() != Thread.State.WAITING || j2.getState() != Thread.State.WAITING) {
            Thread.sleep(10);
        }
        System.out.println("ready " + ProcessHandle.current().pid());
        while (System.in.read() >= 0) {
        }
    }

    static void lockBoth(ReentrantLock first, ReentrantLock second, CountDownLatch held) {
        first.lock();
        held.countDown();
        try {
            held.await();
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
        second.lock();
    }

    static void lockBoth(Object first, Object second, CountDownLatch held) {
        synchronized (first) {
            held.countDown();
            try {
                held.await();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
            synchronized (second) {
            }
        }
    }
}
