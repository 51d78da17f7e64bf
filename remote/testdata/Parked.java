// Parked is a JVM with threads in known states for remote capture tests.
public class Parked {
    public static void main(String[] args) throws Exception {
        Object lock = new Object();
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(() -> {
                synchronized (lock) {
                    try { lock.wait(); } catch (InterruptedException e) { }
                }
            }, "parked-waiter-" + i);
            t.setDaemon(true);
            t.start();
        }
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(60_000);
    }
}
