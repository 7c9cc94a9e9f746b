// ember's Chrome outputs in Chrome DevTools' own code: the Performance
// panel's trace engine as published for Node (@paulirish/trace_engine,
// the one Lighthouse uses; its CPUProfileDataModel is DevTools' model of
// a CPU profile).  A program with known phases on two threads
// (tests/record/timeline.c: phase_one, phase_two, phase_three one after
// the other on the main thread, background_work on the thread
// "<b onclick=x>") recorded by `ember record -o x.trace.json` and
// `-o x.cpuprofile`, and by perf record read by `ember collapse perf
// perf.data -o ...`; each file parsed as DevTools parses it (trace
// events: TraceModel.parse; .cpuprofile: the fake trace DevTools makes of
// it, parsed as a CPU profile).  Checks the trace's bounds (the window
// the panel shows) hold the samples, a CPU profile per thread with its
// pid, tid and name, the phases in order in the samples' time order
// (and, for ember record's, each phase's samples within the times the
// program printed for it: ember's times are CLOCK_MONOTONIC's, as
// Chrome's), the call frames' names, urls and lines where the source
// has them; and that threads known by name alone (speedscope's) come
// out as threads of one process with ids of their own.
// Perfetto's trace processor is not published on npm (its UI's importer
// neither), so it is not checked here.  Ends with
// "devtools: N passed, M failed".
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

const { top, ember, tmp, check, finish } = require("./suite")("devtools");
const engineDir = path.join(__dirname, "node_modules/@paulirish/trace_engine");

if (!fs.existsSync(path.join(engineDir, "package.json"))) {
	console.log("devtools: skipped: no @paulirish/trace_engine (npm ci in tests/browser)");
	finish();
}
const src = path.join(top, "tests/record/timeline.c");
const prog = path.join(tmp, "timeline");
try {
	execFileSync(process.env.CC || "cc", ["-O2", "-g", "-fno-omit-frame-pointer",
		"-pthread", "-o", prog, src]);
	execFileSync(ember, ["record", "-q", "-o", path.join(tmp, "probe.folded"),
		"--", prog, "0.01"], { stdio: ["ignore", "ignore", "pipe"] });
} catch (e) {
	console.log(`devtools: skipped: cannot compile or record here: ${String(e.stderr || e.message).split("\n")[0]}`);
	finish();
}

// the source lines DevTools should show (1-based; V8's lineNumber is
// 0-based)
const lines = fs.readFileSync(src, "utf8").split("\n");
const lineOf = (re) => lines.findIndex((l) => re.test(l)) + 1;
const want = {
	phase_one: lineOf(/^PHASE\(phase_one\)/),
	phase_two: lineOf(/^PHASE\(phase_two\)/),
	phase_three: lineOf(/^PHASE\(phase_three\)/),
	background_work: lineOf(/^NOINLINE void background_work\(void\)/),
	main: lineOf(/^int main\(/),
};
const phases = ["phase_one", "phase_two", "phase_three"];

// the phases' times as the program printed them (CLOCK_MONOTONIC, µs,
// the clock ember record samples by), per file that has them
const printed = new Map();
const files = [];
const make = (what, args, name) => {
	try {
		const out = execFileSync(ember, args.map((a) => a == "OUT" ? path.join(tmp, name) : a),
			{ stdio: ["ignore", "pipe", "pipe"] }).toString();
		const t = new Map();
		for (const m of out.matchAll(/^(phase_\w+) (\d+) (\d+)$/gm))
			t.set(m[1], [Number(m[2]), Number(m[3])]);
		if (args[0] == "record" && t.size == 3)
			printed.set(name, t);
		files.push([what, name]);
	} catch (e) {
		check(`${what}: written`, false, String(e.stderr || e.message).split("\n")[0]);
	}
};
for (const name of ["r.trace.json", "r.cpuprofile"])
	make(`ember record -o ${name}`, ["record", "-q", "-F", "499", "-o", "OUT", "--", prog, "0.1"], name);
try {
	const data = path.join(tmp, "p.data");
	execFileSync("perf", ["record", "-q", "-g", "-F", "499", "-o", data, "--",
		prog, "0.1"], { stdio: ["ignore", "ignore", "pipe"] });
	for (const name of ["d.trace.json", "d.cpuprofile"])
		make(`collapse perf perf.data -o ${name}`, ["collapse", "perf", "-q", data, "-o", "OUT"], name);
} catch (e) {
	console.log(`devtools: perf.data skipped: ${String(e.stderr || e.message).split("\n")[0]}`);
}
// stacks without times (folded), whose trace starts at time zero
fs.writeFileSync(path.join(tmp, "f.folded"), "a;b 3\na;c 2\n");
make("collapse folded -o f.trace.json", ["collapse", "folded", path.join(tmp, "f.folded"), "-o", "OUT"], "f.trace.json");
make("collapse folded -o f.cpuprofile", ["collapse", "folded", path.join(tmp, "f.folded"), "-o", "OUT"], "f.cpuprofile");

// threads that speedscope names only (ids of their own in the trace)
make("collapse speedscope -o n.trace.json (named threads)", ["collapse", "speedscope",
	path.join(top, "tests/golden/collapse/speedscope-sampled-times/input.speedscope.json"),
	"-o", "OUT"], "n.trace.json");

// A thread's samples as DevTools' model walks them: [name, url, line]
// of each frame from the root, in time order.
function samples(model) {
	const out = [];
	for (let i = 0; i < model.samples.length; i++) {
		const st = [];
		for (let n = model.nodeByIndex(i); n && n.parent; n = n.parent)
			st.unshift(n.callFrame);
		out.push({ ts: model.timestamps[i], stack: st });
	}
	return out;
}

// The phases in the order their samples come, runs of a tenth of the
// longest or more (shorter ones straddle a phase change).
function runs(ss) {
	const r = [];
	for (const s of ss) {
		const f = s.stack.find((c) => phases.includes(c.functionName));
		if (!f) continue;
		const last = r[r.length - 1];
		if (last && last.name == f.functionName) last.n++;
		else r.push({ name: f.functionName, n: 1 });
	}
	const most = Math.max(0, ...r.map((x) => x.n));
	return r.filter((x) => x.n >= most * 0.1).map((x) => x.name)
		.filter((n, i, a) => i == 0 || a[i - 1] != n);
}

// The call frames of the program's functions: a file:// url of the
// source and its line, 0-based.
function framesOk(what, ss, names) {
	const seen = new Map();
	for (const s of ss)
		for (const c of s.stack)
			if (c.functionName in want && !seen.has(c.functionName))
				seen.set(c.functionName, c);
	for (const n of names) {
		const c = seen.get(n);
		check(`${what}: ${n}'s call frame: url and line of the source`,
			c && c.url == "file://" + src && c.lineNumber + 1 == want[n],
			c && [c.url, c.lineNumber]);
	}
	if (!names.includes("phase_two"))
		return;
	const s = ss.find((x) => x.stack.some((c) => c.functionName == "phase_two"));
	const names2 = s ? s.stack.map((c) => c.functionName) : [];
	check(`${what}: a phase's stack runs main ... phase_two ... from the root`,
		names2.indexOf("main") >= 0 && names2.indexOf("main") < names2.indexOf("phase_two"), names2);
}

// Each sample in a phase is taken while the program ran it (its times
// in µs; 1 ms of slack for rounding).
function inPhase(what, name, ss) {
	const t = printed.get(name);
	if (!t)
		return;
	const out = [];
	let n = 0;
	for (const s of ss) {
		const f = s.stack.find((c) => phases.includes(c.functionName));
		if (!f) continue;
		n++;
		const [a, b] = t.get(f.functionName);
		if (s.ts < a - 1000 || s.ts > b + 1000)
			out.push([f.functionName, s.ts, a, b]);
	}
	check(`${what}: each phase's samples within the times the program printed for it`,
		n > 20 && out.length == 0, [n, out.slice(0, 3)]);
}

(async () => {
	globalThis.DOMRect = class DOMRect {
		constructor(x = 0, y = 0, w = 0, h = 0) {
			Object.assign(this, { x, y, width: w, height: h });
		}
	};
	const Trace = await import(path.join(engineDir, "models/trace/trace.js"));
	const CPU = await import(path.join(engineDir, "models/cpu_profile/cpu_profile.js"));
	for (const [what, name] of files) {
		const text = fs.readFileSync(path.join(tmp, name), "utf8");
		const cpuprofile = name.endsWith(".cpuprofile");
		const folded = name.startsWith("f.");
		let d;
		try {
			const json = JSON.parse(text);
			// DevTools opens a .cpuprofile as a trace of one event
			const ev = cpuprofile
				? Trace.Helpers.SamplesIntegrator.SamplesIntegrator.createFakeTraceFromCpuProfile(json, 1)
				: { traceEvents: json.traceEvents || json, metadata: {} };
			const model = Trace.TraceModel.Model.createWithAllHandlers();
			await model.parse(ev.traceEvents, { metadata: ev.metadata, isCPUProfile: cpuprofile });
			d = model.parsedTrace(0).data;
			if (cpuprofile)
				d.raw = new CPU.CPUProfileDataModel.CPUProfileDataModel(json);
		} catch (e) {
			check(`${what}: parsed by DevTools' trace engine`, false, e.message);
			continue;
		}
		const threads = Trace.Handlers.Threads.threadsInTrace(d);
		const b = d.Meta.traceBounds;
		// (DevTools gives the last sample, ember's "(idle)" at the end,
		// the average interval: it may end past the profile)
		const ts = threads.flatMap((t) => t.entries.filter((e) => !e.callFrame ||
			e.callFrame.functionName != "(idle)").map((e) => [e.ts, e.ts + (e.dur || 0)])).flat();
		check(`${what}: the trace's bounds hold its samples`,
			Number.isFinite(b.min) && b.range > 0 && ts.length > 0 &&
			ts.every((t) => t >= b.min && t <= b.max + 1), [b, Math.min(...ts), Math.max(...ts)]);
		if (name == "n.trace.json") {
			const ids = threads.map((t) => [t.pid, t.tid, t.name]);
			check(`${what}: two threads, one process, ids above 0`, threads.length == 2 &&
				threads.every((t) => t.pid > 0 && t.tid > 0 && t.pid == threads[0].pid) &&
				threads[0].tid != threads[1].tid &&
				threads.some((t) => t.name == "io-thread") &&
				threads.some((t) => t.name == "app (tid 7)" && t.tid == 7), ids);
			continue;
		}
		if (folded) {
			check(`${what}: the stacks`, threads.length == 1 &&
				threads[0].entries.some((e) => e.callFrame && e.callFrame.functionName == "c"),
				threads.map((t) => t.entries.length));
			continue;
		}
		if (cpuprofile) {
			// one profile, all threads in one
			const ss = samples(d.raw);
			const has = (f) => ss.some((s) => s.stack.some((c) => c.functionName == f));
			check(`${what}: one CPU profile`, threads.length == 1 && threads[0].type == "CPU_PROFILE",
				threads.map((t) => t.type));
			check(`${what}: DevTools' model: samples in time order`,
				ss.length > 20 && ss.every((s, i) => !i || s.ts >= ss[i - 1].ts), ss.length);
			check(`${what}: the phases in order`,
				JSON.stringify(runs(ss)) == JSON.stringify(phases), runs(ss));
			check(`${what}: both threads' functions`, has("background_work") && has("phase_one"));
			framesOk(what, ss, [...phases, "background_work", "main"]);
			inPhase(what, name, ss.map((x) => ({ ts: x.ts * 1000, stack: x.stack })));
			continue;
		}
		// trace events: a profile per thread, where ember named it
		const byTid = new Map();
		for (const [pid, m] of d.Samples.profilesInProcess)
			for (const [tid, f] of m)
				byTid.set(tid, { pid, model: f.parsedProfile });
		const main = threads.find((t) => /^timeline \(tid \d+\)$/.test(t.name));
		const bg = threads.find((t) => /^<b onclick=x> \(tid \d+\)$/.test(t.name));
		check(`${what}: two threads, named`, threads.length == 2 && main && bg,
			threads.map((t) => t.name));
		if (!main || !bg) continue;
		check(`${what}: the main thread's tid is its pid, the name's`,
			main.tid == main.pid && main.name.includes(`tid ${main.tid})`), [main.pid, main.tid]);
		check(`${what}: the other thread: same pid, its own tid`,
			bg.pid == main.pid && bg.tid != main.tid && bg.name.includes(`tid ${bg.tid})`), [bg.pid, bg.tid]);
		const pm = byTid.get(main.tid), pb = byTid.get(bg.tid);
		check(`${what}: a CPU profile for each thread`, byTid.size == 2 && pm && pb &&
			pm.pid == main.pid && pb.pid == bg.pid, [...byTid.keys()]);
		if (!pm || !pb) continue;
		const sm = samples(pm.model), sb = samples(pb.model);
		const only = (ss, f) => ss.filter((s) => s.stack.some((c) => c.functionName == f)).length;
		check(`${what}: the main thread's phases in order`,
			JSON.stringify(runs(sm)) == JSON.stringify(phases), runs(sm));
		check(`${what}: background_work on its own thread only`,
			only(sb, "background_work") > 0 && only(sm, "background_work") == 0 &&
			phases.every((f) => only(sb, f) == 0), [only(sb, "background_work"), only(sm, "background_work")]);
		// the panel's flame chart: the calls the engine made of the samples
		const calls = main.entries.filter((e) => Trace.Types.Events.isProfileCall(e) &&
			phases.includes(e.callFrame.functionName)).sort((a, b2) => a.ts - b2.ts);
		const order = calls.map((c) => c.callFrame.functionName).filter((n, i, a) => i == 0 || a[i - 1] != n);
		check(`${what}: the flame chart's calls: the phases in order`,
			JSON.stringify(order) == JSON.stringify(phases), order.slice(0, 10));
		framesOk(what, sm, [...phases, "main"]);
		inPhase(what, name, sm.map((x) => ({ ts: x.ts * 1000, stack: x.stack })));
		framesOk(`${what} (other thread)`, sb, ["background_work"]);
	}
	finish();
})().catch((e) => {
	check("the run", false, e.stack);
	finish();
});
