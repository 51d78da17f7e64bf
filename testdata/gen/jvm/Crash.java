import java.lang.reflect.Field;
import java.util.concurrent.CountDownLatch;

/**
 * Crash makes a HotSpot JVM crash on purpose, to get a real hs_err_pid file:
 * it starts a few threads that wait (so that the file's "Java Threads:" list
 * has more than the crashing thread), prints "ready <pid>", then reads
 * address 0 through sun.misc.Unsafe, which ends the JVM with SIGSEGV.
 */
public class Crash {
    public static void main(String[] args) throws Exception {
        Object lock = new Object();
        CountDownLatch started = new CountDownLatch(3);
        for (int i = 1; i <= 3; i++) {
            Thread t = new Thread(() -> {
                synchronized (lock) {
                    started.countDown();
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "crash-waiter-" + i);
            t.setDaemon(true);
            t.start();
        }
        started.await();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        sun.misc.Unsafe unsafe = (sun.misc.Unsafe) f.get(null);
        unsafe.getInt(0L);
    }
}
