// The Firefox Profiler's processed format as ember writes it, checked
// against the profiler's own definition of it: the types of
// src/types/profile.ts and the upgraders of
// src/profile-logic/processed-profile-versioning.ts in
// firefox-devtools/profiler @df31314 (PROCESSED_PROFILE_VERSION 70),
// taken back to version 66, the one ember writes (v70 moved `lib` from
// resourceTable to frameTable; v67-v69 changed no JSON shape).  Every
// table has exactly its columns, each as long as the table, and every
// index points into its table.  Then the samples of a program with known
// phases (tests/record/phases.c) in time order.  Ends with "firefox: N
// passed, M failed".  Node.js only.
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

const { top, ember, tmp, check, finish } = require("./suite")("firefox");

// The columns of each table at version 66 (profile.ts, as above).
const tables = {
	stackTable: ["frame", "prefixOffset"],
	frameTable: ["address", "inlineDepth", "category", "subcategory", "func",
		"nativeSymbol", "innerWindowID", "line", "column", "originalLocation"],
	funcTable: ["name", "isJS", "relevantForJS", "resource", "source",
		"lineNumber", "columnNumber", "originalLocation"],
	resourceTable: ["lib", "name", "host", "type"],
	nativeSymbols: ["libIndex", "address", "name", "functionSize"],
	sources: ["id", "filename", "startLine", "startColumn", "sourceMapURL",
		"content"],
	sourceLocationTable: ["source", "line", "column"],
};
const int = (v) => Number.isInteger(v);
const idx = (v, n) => int(v) && v >= 0 && v < n;
const orNull = (f) => (v) => v === null || f(v);

function table(what, t, cols) {
	if (!t || !int(t.length)) {
		check(`${what}: a table with a length`, false);
		return false;
	}
	const keys = Object.keys(t).filter((k) => k != "length").sort();
	check(`${what}: its columns`, JSON.stringify(keys) == JSON.stringify([...cols].sort()), keys);
	const bad = cols.filter((c) => !Array.isArray(t[c]) || t[c].length != t.length);
	check(`${what}: every column as long as the table`, bad.length == 0, bad);
	return bad.length == 0;
}
function every(what, col, f) {
	const i = col.findIndex((v, i) => !f(v, i));
	check(what, i < 0, i < 0 ? undefined : [i, col[i]]);
}

function validate(what, text) {
	let p;
	try {
		p = JSON.parse(text);
	} catch (e) {
		check(`${what}: JSON`, false, e.message);
		return;
	}
	const m = p.meta || {};
	check(`${what}: meta`, m && typeof m == "object");
	check(`${what}: preprocessedProfileVersion 66`, m.preprocessedProfileVersion === 66);
	for (const k of ["interval", "startTime", "processType", "version"])
		check(`${what}: meta.${k} a number`, typeof m[k] == "number", m[k]);
	check(`${what}: meta.stackwalk 0 or 1`, m.stackwalk === 0 || m.stackwalk === 1);
	check(`${what}: meta.product`, typeof m.product == "string");
	check(`${what}: meta.markerSchema`, Array.isArray(m.markerSchema));
	const cats = m.categories;
	check(`${what}: categories, one grey (the default)`, Array.isArray(cats) &&
		cats.filter((c) => c.color == "grey").length >= 1);
	check(`${what}: categories with name, color, subcategories`, cats.every((c) =>
		typeof c.name == "string" && typeof c.color == "string" &&
		Array.isArray(c.subcategories) && c.subcategories.length > 0));
	check(`${what}: sampleUnits`, m.sampleUnits && m.sampleUnits.time == "ms" &&
		m.sampleUnits.eventDelay == "ms" &&
		["ns", "µs", "variable CPU cycles"].includes(m.sampleUnits.threadCPUDelta));
	check(`${what}: libs`, Array.isArray(p.libs) && p.libs.every((l) =>
		["arch", "name", "path", "debugName", "debugPath", "breakpadId"]
			.every((k) => typeof l[k] == "string") &&
		(l.codeId === null || typeof l.codeId == "string")), p.libs);
	check(`${what}: a GNU build id's breakpad id`, p.libs.every((l) =>
		!l.codeId || /^[0-9A-F]{32}0$/.test(l.breakpadId)));
	const s = p.shared;
	check(`${what}: shared.stringArray`, Array.isArray(s.stringArray) &&
		s.stringArray.every((x) => typeof x == "string"));
	const nstr = s.stringArray.length;
	let ok = true;
	for (const [name, cols] of Object.entries(tables))
		ok = table(`${what}: ${name}`, s[name], cols) && ok;
	if (!ok)
		return;
	const { stackTable: st, frameTable: ft, funcTable: fu, resourceTable: rt,
		sources: so } = s;
	every(`${what}: stack frames in the frame table`, st.frame, (v) => idx(v, ft.length));
	every(`${what}: prefixOffset 0 (a root) or back to an earlier stack`,
		st.prefixOffset, (v, i) => int(v) && v >= 0 && v <= i);
	every(`${what}: frame funcs`, ft.func, (v) => idx(v, fu.length));
	every(`${what}: frame addresses library-relative or -1`, ft.address, (v) => int(v) && v >= -1);
	every(`${what}: inline depths`, ft.inlineDepth, (v) => int(v) && v >= 0 && v < 256);
	every(`${what}: frame categories`, ft.category, orNull((v) => idx(v, cats.length)));
	every(`${what}: frame subcategories`, ft.subcategory, (v, i) => v === null ||
		idx(v, cats[ft.category[i]].subcategories.length));
	every(`${what}: frame lines`, ft.line, orNull((v) => int(v) && v > 0));
	every(`${what}: func names`, fu.name, (v) => idx(v, nstr));
	every(`${what}: func isJS`, fu.isJS, (v) => typeof v == "boolean");
	every(`${what}: func resources`, fu.resource, (v) => v === -1 || idx(v, rt.length));
	every(`${what}: func sources`, fu.source, orNull((v) => idx(v, so.length)));
	every(`${what}: func lines`, fu.lineNumber, orNull((v) => int(v) && v > 0));
	every(`${what}: resource libs`, rt.lib, (v) => idx(v, p.libs.length));
	every(`${what}: resource names`, rt.name, (v) => idx(v, nstr));
	every(`${what}: resource types`, rt.type, (v) => idx(v, 6));
	every(`${what}: source file names`, so.filename, (v) => idx(v, nstr));
	check(`${what}: threads`, Array.isArray(p.threads) && p.threads.length > 0);
	for (const t of p.threads) {
		const tw = `${what}: thread ${t.name}`;
		check(`${tw}: fields`, typeof t.name == "string" && typeof t.isMainThread == "boolean" &&
			typeof t.processType == "string" && typeof t.pid == "string" &&
			(int(t.tid) || typeof t.tid == "string") && typeof t.registerTime == "number" &&
			typeof t.processStartupTime == "number" && Array.isArray(t.pausedRanges));
		const sm = t.samples;
		check(`${tw}: samples`, sm && int(sm.length) && Array.isArray(sm.stack) &&
			sm.stack.length == sm.length && Array.isArray(sm.time) &&
			sm.time.length == sm.length &&
			(sm.weight === null || (Array.isArray(sm.weight) && sm.weight.length == sm.length)) &&
			["samples", "tracing-ms", "bytes"].includes(sm.weightType));
		every(`${tw}: sample stacks`, sm.stack, orNull((v) => idx(v, st.length)));
		every(`${tw}: samples sorted by time`, sm.time, (v, i) =>
			typeof v == "number" && (i == 0 || v >= sm.time[i - 1]));
		table(`${tw}: markers`, t.markers, ["data", "name", "startTime", "endTime", "phase", "category"]);
	}
	// the v70 upgrader's step (resourceTable.lib onto frames) finds its lib
	const libs = ft.func.map((f) => fu.resource[f] == -1 ? -1 : rt.lib[fu.resource[f]]);
	check(`${what}: upgraded to v70, frames' libs`, libs.every((l) => l == -1 || idx(l, p.libs.length)));
	return p;
}

// folded stacks in (no times: one sample per stack)
const folded = path.join(tmp, "f.firefox.json");
execFileSync(ember, ["collapse", "folded", path.join(top, "tests/interchange/names.folded"),
	"-o", folded]);
validate("folded", fs.readFileSync(folded, "utf8"));

// a recording
const prog = path.join(tmp, "phases");
let recorded = false;
try {
	execFileSync(process.env.CC || "cc", ["-O2", "-g", "-fno-omit-frame-pointer",
		"-o", prog, path.join(top, "tests/record/phases.c")]);
	execFileSync(ember, ["record", "-q", "-o", path.join(tmp, "probe.folded"),
		"--", prog, "0.01"], { stdio: ["ignore", "ignore", "pipe"] });
	recorded = true;
} catch (e) {
	console.log(`firefox: recording skipped: ${String(e.stderr || e.message).split("\n")[0]}`);
}
if (recorded) {
	const out = path.join(tmp, "r.json");
	let p;
	try {
		execFileSync(ember, ["record", "-q", "-F", "499", "-o", out, "--", prog, "0.1"],
			{ stdio: ["ignore", "ignore", "pipe"] });
		p = validate("record", fs.readFileSync(out, "utf8"));
	} catch (e) {
		check("record -o x.json", false, String(e.stderr || e.message).split("\n")[0]);
	}
	if (p) {
		const s = p.shared, names = s.stringArray;
		const t = p.threads.find((t) => t.name == "phases");
		check("record: the program's thread, its process", t && t.processName == "phases" &&
			t.isMainThread && t.pid == String(t.tid), p.threads.map((t) => t.name));
		// each sample's phase (the phase function on its stack)
		const phases = ["parse", "compute", "write_out"];
		const phaseOf = (st) => {
			for (; st !== null; ) {
				const n = names[s.funcTable.name[s.frameTable.func[s.stackTable.frame[st]]]];
				if (phases.includes(n))
					return n;
				const o = s.stackTable.prefixOffset[st];
				st = o ? st - o : null;
			}
			return null;
		};
		const seq = t ? t.samples.stack.map(phaseOf).filter((n) => n) : [];
		const runs = [];
		for (const n of seq) {
			if (runs.length && runs[runs.length - 1][0] == n) runs[runs.length - 1][1]++;
			else runs.push([n, 1]);
		}
		const most = Math.max(0, ...runs.map((r) => r[1]));
		const order = runs.filter((r) => r[1] > most / 10).map((r) => r[0])
			.filter((n, i, a) => i == 0 || a[i - 1] != n);
		check("record: samples in time order show parse, compute, write_out, parse",
			JSON.stringify(order) == JSON.stringify(["parse", "compute", "write_out", "parse"]),
			runs);
		const main = p.libs.findIndex((l) => l.name == "phases");
		check("record: the program among the libs, with its build id", main >= 0 &&
			/^[0-9a-f]{40}$/.test(p.libs[main].codeId), p.libs.map((l) => l.name));
		const fi = s.frameTable.func.findIndex((f) => names[s.funcTable.name[f]] == "compute");
		check("record: compute's frame: an address in the program, its source file",
			fi >= 0 && s.frameTable.address[fi] > 0 &&
			s.resourceTable.lib[s.funcTable.resource[s.frameTable.func[fi]]] == main &&
			/phases\.c$/.test(names[s.sources.filename[s.funcTable.source[s.frameTable.func[fi]]]]));
		const kernel = s.frameTable.category.some((c) => p.meta.categories[c].name == "Kernel");
		const user = s.frameTable.category.some((c) => p.meta.categories[c].name == "User");
		check("record: User and Kernel categories", user && kernel);
	}
}
finish();
