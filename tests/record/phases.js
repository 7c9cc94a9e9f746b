// A program with known phases, one after the other (as phases.c):
// parse, compute, write_out, parse again, each spinning SECONDS of CPU
// time (default 0.1) in its own function.
//   node --cpu-prof phases.js [SECONDS]
"use strict";
const s = Number(process.argv[2] || 0.1) * 1000;
let sink = 0;
function spin(ms) {
	const end = process.cpuUsage().user / 1000 + ms;
	while (process.cpuUsage().user / 1000 < end)
		for (let i = 0; i < 20000; i++) sink += Math.sqrt(i);
}
function parse() { spin(s); }
function compute() { spin(s); }
function write_out() { spin(s); }
parse();
compute();
write_out();
parse();
