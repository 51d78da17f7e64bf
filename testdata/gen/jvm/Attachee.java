// Attachee is a JVM for the capture-safety tests of package remote
// (remote/jvm_*_test.go): three threads wait on a monitor
// ("attachee-waiter-0" to "-2"), it prints "ready <pid>", and it exits with
// status 0 as soon as a byte arrives on its standard input or the input
// ends, so that a test can make it exit in the middle of a capture. It
// exits with status 2 after five minutes, should a test forget it.
public class Attachee {
    public static void main(String[] args) throws Exception {
        Object lock = new Object();
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(() -> {
                synchronized (lock) {
                    try { lock.wait(); } catch (InterruptedException e) { }
                }
            }, "attachee-waiter-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread watchdog = new Thread(() -> {
            try { Thread.sleep(300_000); } catch (InterruptedException e) { }
            System.exit(2);
        }, "attachee-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        System.in.read();
        System.exit(0);
    }
}
