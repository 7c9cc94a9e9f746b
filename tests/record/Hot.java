// A known Java call chain for `ember record`: main -> a -> b, b spinning,
// for SECONDS.  With a second argument, prints "ready" once running (for
// attaching).  Run with -XX:CompileCommand=dontinline,demo.Hot::* so that
// each method stays a frame of its own once compiled.
package demo;

public class Hot {
	static volatile long sink;

	static long b(long n) {
		long s = 0;
		for (long i = 0; i < n; i++)
			s += i * i ^ (s >>> 3);
		return s;
	}

	static long a(long n) {
		return b(n) + 1;
	}

	public static void main(String[] args) {
		long end = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
		if (args.length > 1) {
			System.out.println("ready");
			System.out.flush();
		}
		for (long i = 0;; i++) {
			sink += a(1000);
			if ((i & 255) == 0 && System.nanoTime() >= end)
				break;
		}
	}
}
