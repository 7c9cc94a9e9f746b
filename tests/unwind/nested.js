// A Node.js program whose stacks the unwinder tests sample:
// main -> baz -> bar -> foo, with foo hot.  Runs for argv[2] seconds.
function foo(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += (i * i) % 7;
	return s;
}
function bar(n) {
	return foo(n) + 1;
}
function baz(n) {
	return bar(n) + 1;
}
function main() {
	const end = Date.now() + 1000 * (Number(process.argv[2]) || 5);
	let t = 0;
	while (Date.now() < end)
		t += baz(20000);
	return t;
}
main();
