// Time order against the real consumers: a program whose phases run one
// after the other on one thread (tests/record/phases.c: parse, compute,
// write_out, parse) recorded by `ember record` as speedscope, Chrome
// trace events, .cpuprofile and perf script text (and as pprof, read
// back by `ember collapse pprof` into speedscope), and the same phases
// read by `ember collapse` from other tools' files that have times
// (perf script text of perf record, node --cpu-prof of
// tests/record/phases.js, a trace of Chromium with V8's CPU profile:
// tests/interchange/phases.trace.json, which speedscope reads itself
// too), each read by speedscope's own importer (its release bundle, in
// headless Chromium);
// the phases must come in that order in its Time Order view (the order in
// which it lays the samples out), each about as long as it ran.  Ends with
// "timeorder: N passed, M failed".
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { chromium } = require("playwright-core");
const Ajv = require("ajv");

const { top, ember, tmp, check, finish } = require("./suite")("timeorder");
const release = path.join(__dirname, "node_modules/speedscope/dist/release");

const prog = path.join(tmp, "phases");
try {
	execFileSync(process.env.CC || "cc", ["-O2", "-g", "-fno-omit-frame-pointer",
		"-o", prog, path.join(top, "tests/record/phases.c")]);
	execFileSync(ember, ["record", "-q", "-o", path.join(tmp, "probe.folded"),
		"--", prog, "0.01"], { stdio: ["ignore", "ignore", "pipe"] });
} catch (e) {
	console.log(`timeorder: skipped: cannot compile or record here: ${String(e.stderr || e.message).split("\n")[0]}`);
	finish();
}

// one recording, written in each format (record once per format: the
// profiler cannot write two files)
const kinds = [
	["speedscope", "p.speedscope.json"],
	["chrome trace events", "p.trace.json"],
	["chrome trace events (.chrome.json)", "p.chrome.json"],
	["cpuprofile", "p.cpuprofile"],
	["perf script", "p.perf.txt"],
];
const written = kinds.filter(([what, name]) => {
	try {
		execFileSync(ember, ["record", "-q", "-F", "499", "-o",
			path.join(tmp, name), "--", prog, "0.1"],
			{ stdio: ["ignore", "ignore", "pipe"] });
		return true;
	} catch (e) {
		check(`${what}: ember record -o ${name}`, false,
			String(e.stderr).split("\n")[0]);
		return false;
	}
});
if (!written.some(([, name]) => name == "p.speedscope.json"))
	finish();
// the round trip through pprof: record -o .pb.gz (each sample's time in
// a timestamp_ns label), read back by ember and written as speedscope
try {
	const pb = path.join(tmp, "p.pb.gz");
	execFileSync(ember, ["record", "-q", "-F", "499", "-o", pb, "--", prog, "0.1"],
		{ stdio: ["ignore", "ignore", "pipe"] });
	execFileSync(ember, ["collapse", "pprof", "-q", pb, "-o",
		path.join(tmp, "pb.speedscope.json")]);
	written.push(["record to pprof to speedscope", "pb.speedscope.json"]);
} catch (e) {
	check("record to pprof to speedscope", false, String(e.stderr || e.message).split("\n")[0]);
}
// perf.data (where perf records) through `ember collapse perf`
try {
	const data = path.join(tmp, "p.data");
	execFileSync("perf", ["record", "-q", "-g", "-F", "499", "-o", data, "--",
		prog, "0.1"], { stdio: ["ignore", "ignore", "pipe"] });
	for (const [what, name] of [["perf.data to speedscope", "d.speedscope.json"],
		["perf.data to trace events", "d.trace.json"]]) {
		execFileSync(ember, ["collapse", "perf", "-q", data, "-o", path.join(tmp, name)]);
		written.push([what, name]);
	}
} catch (e) {
	console.log(`timeorder: perf.data skipped: ${String(e.stderr || e.message).split("\n")[0]}`);
}

// other tools' files with times, through `ember collapse`
// (wall: V8's samples weigh wall time, which a loaded machine stretches
// unevenly: their phases' shares are not checked)
const collapsed = (what, fmt, input, outs, wall) => {
	for (const o of outs) {
		try {
			execFileSync(ember, ["collapse", fmt, "-q", input, "-o", path.join(tmp, o)],
				{ stdio: ["ignore", "ignore", "pipe"] });
			written.push([`${what} to ${o.replace(/^[^.]*/, "")}`, o, wall]);
		} catch (e) {
			check(`${what}: ember collapse ${fmt} -o ${o}`, false,
				String(e.stderr || e.message).split("\n")[0]);
		}
	}
};
try {
	const data = path.join(tmp, "s.data");
	execFileSync("perf", ["record", "-q", "-g", "-F", "499", "-o", data, "--",
		prog, "0.1"], { stdio: ["ignore", "ignore", "pipe"] });
	fs.writeFileSync(path.join(tmp, "s.txt"), execFileSync("perf",
		["script", "-i", data], { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 28 }));
	collapsed("perf script", "perf", path.join(tmp, "s.txt"),
		["s.speedscope.json", "s.trace.json", "s.cpuprofile"]);
} catch (e) {
	console.log(`timeorder: perf script skipped: ${String(e.stderr || e.message).split("\n")[0]}`);
}
try {
	execFileSync(process.execPath, ["--cpu-prof", "--cpu-prof-dir", tmp,
		"--cpu-prof-name", "n.cpuprofile", path.join(top, "tests/record/phases.js"), "0.1"],
		{ stdio: ["ignore", "ignore", "pipe"] });
	collapsed("node --cpu-prof", "cpuprofile", path.join(tmp, "n.cpuprofile"),
		["n.speedscope.json", "n.trace.json"], true);
} catch (e) {
	console.log(`timeorder: node --cpu-prof skipped: ${String(e.stderr || e.message).split("\n")[0]}`);
}
const trace = path.join(top, "tests/interchange/phases.trace.json");
fs.copyFileSync(trace, path.join(tmp, "chromium.json"));
written.push(["Chromium's trace itself", "chromium.json", true]);
collapsed("Chromium's trace", "chrome", trace,
	["c.speedscope.json", "c.trace.json", "c.cpuprofile"], true);

// speedscope's schema
const schema = JSON.parse(fs.readFileSync(
	path.join(release, "file-format-schema.json"), "utf8"));
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
const doc = JSON.parse(fs.readFileSync(path.join(tmp, "p.speedscope.json"), "utf8"));
check("speedscope: valid by speedscope's schema", validate(doc),
	(validate.errors || []).slice(0, 3));
check("speedscope: one profile per thread, named after it",
	doc.profiles.length == 1 && /^phases \(tid \d+\)$/.test(doc.profiles[0].name),
	doc.profiles.map((p) => p.name));
const p0 = doc.profiles[0];
check("speedscope: weights are the periods (ns)",
	p0.unit == "nanoseconds" && p0.weights.every((w) => w > 1e6 && w < 3e6),
	p0.weights.slice(0, 5));
check("speedscope: startValue/endValue span the samples",
	p0.endValue - p0.startValue >= p0.weights.reduce((a, b) => a + b, 0) &&
	p0.endValue - p0.startValue < 2e9, [p0.startValue, p0.endValue]);

// speedscope's bundle, its importer exposed to the page
const site = path.join(tmp, "site");
fs.cpSync(release, site, { recursive: true });
const js = fs.readdirSync(site).find((f) => /^speedscope-.*\.js$/.test(f));
let code = fs.readFileSync(path.join(site, js), "utf8");
const re = /async function (\w+)\(t,e\)\{return\(await \w+\)\.importProfilesFromArrayBuffer\(t,e\)\}/;
check("speedscope's bundle has its importer", re.test(code));
code = code.replace(re, (m, f) => `${m}window.__emberImport=${f};`);
fs.writeFileSync(path.join(site, js), code);

const phases = ["parse", "compute", "write_out"];
(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu"],
	});
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(e.message));
	await page.goto("file://" + path.join(site, "index.html"));
	await page.waitForFunction(() => window.__emberImport !== undefined,
		null, { timeout: 10000 }).catch(() => {});
	for (const [what, name, wall] of written) {
		const data = fs.readFileSync(path.join(tmp, name)).toString("base64");
		// the profile speedscope shows first, walked as its Time Order
		// view walks it (forEachCall: samples in file order)
		const r = await page.evaluate(async ([name, data, phases]) => {
			const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
			const g = await window.__emberImport(name, bytes.buffer);
			if (!g) return { error: "not imported" };
			const prof = g.profiles[g.indexToView || 0];
			const runs = [];
			const open = new Map();
			prof.forEachCall((node, v) => {
				// JavaScript's frames are named "function url:line"
				const base = node.frame.name.split(" ")[0];
				if (phases.includes(base))
					open.set(node, v);
			}, (node, v) => {
				if (!open.has(node)) return;
				const start = open.get(node);
				open.delete(node);
				const last = runs[runs.length - 1];
				const base = node.frame.name.split(" ")[0];
				if (last && last.name == base)
					last.len += v - start;
				else
					runs.push({ name: base, len: v - start });
			});
			return { profiles: g.profiles.length, name: prof.getName(),
				total: prof.getTotalWeight(), runs,
				unit: prof.getWeightUnit ? prof.getWeightUnit() : "" };
		}, [name, data, phases]);
		if (r.error) {
			check(`${what}: imported`, false, r.error);
			continue;
		}
		// runs shorter than a tenth of the longest are samples that
		// straddle a phase change; what matters is the order of the
		// phases and that each holds its time (the profile's span is
		// the wall time, longer on a loaded machine)
		const most = Math.max(0, ...r.runs.map((x) => x.len));
		const big = r.runs.filter((x) => x.len > most * 0.1);
		const sum = big.reduce((a, x) => a + x.len, 0);
		const order = big.map((x) => x.name).filter((n, i, a) => i == 0 || a[i - 1] != n);
		check(`${what}: Time Order shows parse, compute, write_out, parse`,
			JSON.stringify(order) == JSON.stringify(["parse", "compute", "write_out", "parse"]),
			r.runs.map((x) => `${x.name}:${x.len}`));
		if (!wall)
			check(`${what}: each phase about a quarter of their time`,
				big.length == 4 && big.every((x) => x.len > sum * 0.15 && x.len < sum * 0.35),
				big.map((x) => x.len));
		check(`${what}: the profile spans them`, r.total >= sum * 0.99, [r.total, sum]);
	}
	check("no errors in the page", errors.length == 0, errors.slice(0, 3));
	await browser.close();
	finish();
})().catch((e) => {
	check("the browser run", false, e.message);
	finish();
});
