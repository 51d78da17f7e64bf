// SpinAndPark is the live JVM program of the timeline tests: one thread,
// "spinner", computes without pause (it uses the most CPU between thread
// dumps), and three threads, "parked-1" to "parked-3", park forever in
// LockSupport.park (the same state and stack in every dump).
//
// It prints "ready <pid>" once every thread runs and waits until stdin
// closes. See testdata/gen/jvm/README.md.
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public class SpinAndPark {
    static volatile long sink;

    static void spin() {
        long x = 1;
        while (true) {
            for (int i = 0; i < 1_000_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            sink = x;
        }
    }

    static void parkForever(CountDownLatch started) {
        started.countDown();
        while (true) {
            LockSupport.park();
        }
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch started = new CountDownLatch(4);
        Thread spinner = new Thread(() -> {
            started.countDown();
            spin();
        }, "spinner");
        spinner.setDaemon(true);
        spinner.start();
        for (int i = 1; i <= 3; i++) {
            Thread t = new Thread(() -> parkForever(started), "parked-" + i);
            t.setDaemon(true);
            t.start();
        }
        started.await();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() >= 0) {
        }
    }
}
