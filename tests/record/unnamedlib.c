/* Stripped with its program (unnamed.c): frames of a module with no symbol,
 * which perf names "[unknown]" at each address. */
static volatile unsigned long sink;
__attribute__((noinline)) static void spin_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 3;
}
__attribute__((noinline)) static void spin_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i * 7;
}
__attribute__((visibility("default"))) void lib_work(unsigned long n)
{
	spin_a(n);
	spin_b(n);
}
