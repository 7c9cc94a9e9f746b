// The HTML viewer's timeline in headless Chromium: a program with three
// phases on its main thread and a background thread with a hostile name
// (tests/record/timeline.c) recorded for real with `ember record -o
// x.html`.  The phases' times come from the program's own clock
// (CLOCK_MONOTONIC, as perf's sample times); the page's first sample time
// (EMBER.timeline.start) maps them onto the page.  Checks the tracks (one
// per thread, names and tids, the same canvas span), a drag over the
// first phase (that phase >= 80% of the selection; the functions table,
// call tree, icicle, sandwich and URL agree), Escape, clicks, Ctrl-click
// and Ctrl-drag on tracks, the URL keeping the range, the stack chart
// (the phases in order, hover text, cleared over empty space, wheel zoom
// and drag), the time axes (ticks at their times above the tracks and in
// the stack chart, following its zoom; the selection's duration), the
// stack chart's zoom and pan kept in the URL and restored, its zoom by a
// drag (Shift held, or on its time axis) to the span dragged, Escape and
// Reset Zoom, and that folded input shows no tracks.  Skips without
// perf_event_open.  Ends with "timeline: N passed, M failed".
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { chromium } = require("playwright-core");

const { top, ember, tmp, check, finish } = require("./suite")("timeline");

const prog = path.join(tmp, "timeline");
let phases = {};
const page_file = path.join(tmp, "t.html");
try {
	execFileSync(process.env.CC || "cc", ["-O2", "-g", "-fno-omit-frame-pointer",
		"-pthread", "-o", prog, path.join(top, "tests/record/timeline.c")]);
	execFileSync(ember, ["record", "-q", "-o", path.join(tmp, "probe.folded"),
		"--", prog, "0.01"], { stdio: ["ignore", "ignore", "pipe"] });
} catch (e) {
	console.log(`timeline: skipped: cannot compile or record here: ${String(e.stderr || e.message).split("\n")[0]}`);
	finish();
}
const out = execFileSync(ember, ["record", "-q", "-F", "999", "-o", page_file, "--",
	prog, "0.25"], { stdio: ["ignore", "pipe", "pipe"] }).toString();
for (const l of out.trim().split("\n")) {
	const [name, a, z] = l.split(" ");
	phases[name] = [+a, +z];
}
check("the program reports its phases", Object.keys(phases).length == 3, out);

// folded stacks of the same shape, for the page without time
const folded = path.join(tmp, "f.folded");
fs.writeFileSync(folded, "timeline;main;phase_one 30\ntimeline;main;phase_two 20\n");
const folded_page = path.join(tmp, "f.html");
execFileSync(ember, ["flamegraph", "--format", "html", "-o", folded_page, folded],
	{ stdio: ["ignore", "ignore", "ignore"] });

let browser, errors = [], requests = [];
async function open(file, hash = "") {
	const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
	const page = await ctx.newPage();
	page.on("pageerror", (e) => errors.push(`${path.basename(file)}: ${e.message}`));
	page.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
	await page.goto("file://" + file + hash);
	await page.waitForFunction(() => window.ember && window.ember.ready &&
		(!window.ember.timeline || window.ember.timeline.ready));
	return page;
}
const close = (page) => page.context().close();
const paint = (page) => page.evaluate(() => new Promise((r) =>
	requestAnimationFrame(() => requestAnimationFrame(r))));

// the page's time (tunits from its first sample) of a monotonic time in µs
let start = 0;
const pageTime = (us) => us - start;

async function test_tracks() {
	const page = await open(page_file);
	start = await page.evaluate(() => EMBER.timeline.start);
	check("the timeline's time unit is the microsecond", await page.evaluate(() => ember.timeline.tunit) == 1000);
	const tracks = await page.evaluate(() => [...document.querySelectorAll("#tracks [data-tid]")].map((el) => {
		const c = el.querySelector("canvas").getBoundingClientRect();
		return { tid: +el.dataset.tid, pid: +el.closest("[data-pid]").dataset.pid, text: el.textContent,
			x: c.left, w: c.width, inner: el.innerHTML };
	}));
	check("one track per thread", tracks.length == 2, tracks.map((t) => t.text));
	const main = tracks.find((t) => t.tid == t.pid), bg = tracks.find((t) => t.tid != t.pid);
	check("the main thread's track names it and its tid", main && main.text == `timeline (${main.tid})`, main && main.text);
	check("the background thread's hostile name is text", bg && bg.text == `<b onclick=x> (${bg.tid})` &&
		!/<b /.test(bg.inner) && await page.evaluate(() => !document.querySelector("#tracks b")), bg && bg.inner);
	check("both tracks in one process", main && bg && main.pid == bg.pid &&
		await page.evaluate(() => document.querySelectorAll("#tracks [data-pid]").length) == 1);
	check("every track's canvas spans the same", tracks.every((t) => t.x == tracks[0].x && t.w == tracks[0].w && t.w > 500), tracks);
	// the span: the first sample to the last of any thread
	const span = await page.evaluate(() => ember.timeline.span);
	const tl = await page.evaluate(() => EMBER.timeline.threads);
	check("the span starts at the first sample", span[0] == 0);
	check("the span ends near the end of the last phase", Math.abs(pageTime(phases.phase_three[1]) - span[1]) < 100000,
		[pageTime(phases.phase_three[1]), span[1]]);
	check("the threads' sample counts add up to the flame graph's",
		tl.reduce((s, t) => s + t[4], 0) > 0);
	check("the stack chart button is there", await page.isVisible("#stack"));
	await close(page);
	return { main, bg };
}

// drag from time a to z (page times) on the track of tid
async function drag(page, tid, a, z) {
	const r = await page.evaluate((tid) => {
		const b = document.querySelector(`#tracks [data-tid="${tid}"] canvas`).getBoundingClientRect();
		return { x: b.left, y: b.top, w: b.width, h: b.height };
	}, tid);
	const sp = await page.evaluate(() => ember.timeline.span);
	const len = await page.evaluate(() => { const s = ember.timeline.span; return s[1] - s[0]; });
	// the canvas spans first sample to last plus one interval: find it
	const end = await page.evaluate((x) => ember.timeline.time(x), r.x + r.w);
	const xo = (t) => r.x + (t - sp[0]) / (end - sp[0]) * r.w;
	await page.mouse.move(xo(a), r.y + r.h / 2);
	await page.mouse.down();
	await page.mouse.move((xo(a) + xo(z)) / 2, r.y + r.h / 2, { steps: 3 });
	await page.mouse.move(xo(z), r.y + r.h / 2);
	await page.mouse.up();
	await paint(page);
	return len;
}

async function test_range({ main, bg }) {
	const page = await open(page_file);
	const whole = await page.evaluate(() => ember.frame(0).samples);
	const [a, z] = phases.phase_one.map(pageTime);
	await drag(page, main.tid, a + 20000, z - 20000);
	const sel = await page.evaluate(() => ember.timeline.selection());
	check("a drag selects its time range", Math.abs(sel.t0 - (a + 20000)) < 5000 && Math.abs(sel.t1 - (z - 20000)) < 5000,
		[sel, a, z]);
	check("...and that thread", sel.tids.length == 1 && sel.tids[0] == main.tid, sel.tids);
	const root = await page.evaluate(() => ember.frame(0).samples);
	const i = await page.evaluate(() => ember.find("phase_one"));
	const f = i >= 0 ? await page.evaluate((i) => ember.frame(i), i) : null;
	check("the flame graph shows only the range", root < whole * 0.6, [root, whole]);
	check("the first phase is >= 80% of the selection", f && f.samples >= 0.8 * root, [f, root]);
	check("the other phases are not", await page.evaluate(() => ember.find("phase_three")) < 0);
	check("the background thread is not in it", await page.evaluate(() => ember.find("background_work")) < 0);
	check("the URL keeps the range", await page.evaluate(() =>
		/(^|&|#)range=\d+-\d+/.test(location.hash) && /threads=\d+/.test(location.hash)), await page.evaluate(() => location.hash));
	check("the range is shown", /ms/.test(await page.textContent("#tl-range")));
	// the functions table: the share of the selection
	await page.click("#table");
	const row = await page.evaluate(() => [...document.querySelectorAll("#functions tbody tr")].map((tr) =>
		[...tr.children].map((td) => td.textContent)).find((r) => r[0] == "phase_one"));
	check("the functions table shows the phase's share of the selection", row && parseFloat(row[4]) >= 80, row);
	check("the selection survives a view change", (await page.evaluate(() => ember.frame(0).samples)) == root);
	await page.click("#flame");
	check("...and back", (await page.evaluate(() => ember.frame(0).samples)) == root);
	// the call tree, inverted, and left-heavy order draw the selection too
	await page.click("#calltree");
	const ctRows = () => page.$$eval("#tree tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
	await page.fill("#filter", "phase_one");
	let ct = await ctRows();
	check("the call tree of the selection: the stacks through the phase >= 80%", ct.length && parseFloat(ct[0][4]) >= 80, ct.slice(0, 3));
	await page.fill("#filter", "phase_three");
	ct = await ctRows();
	check("...and none through the other phases", ct.length == 0, ct.slice(0, 3));
	await page.fill("#filter", "");
	await page.click("#inverted");
	ct = await ctRows();
	check("the inverted call tree of the selection: its roots' shares add up to 100%",
		Math.abs(ct.reduce((a, r) => a + parseFloat(r[2]), 0) - 100) < 0.5, ct.slice(0, 4));
	await page.click("#inverted");
	await page.click("#flame");
	await page.click("#heavy");
	check("Left Heavy: the same selection", (await page.evaluate(() => ember.frame(0).samples)) == root &&
		await page.evaluate(() => ember.find("phase_three")) < 0);
	await page.click("#heavy");
	// the icicle and the sandwich view of the phase: the range's samples
	await page.click("#icicle");
	check("the icicle shows the range", (await page.evaluate(() => ember.frame(0).samples)) == root &&
		await page.evaluate(() => ember.find("phase_three")) < 0);
	const ph = await page.evaluate(() => { const r = ember.rect(ember.find("phase_one")); return r && { x: r.x + Math.min(r.w / 2, 20), y: r.y + r.h / 2 }; });
	await page.mouse.click(ph.x, ph.y, { button: "right" });
	await page.click('#menu div:has-text("Sandwich view of")');
	await paint(page);
	const sw = await page.evaluate(() => [ember.frame(0, "callers"), ember.frame(0, "callees"), ember.state.mode]);
	check("the sandwich of the phase shows the range's samples of it", sw[2] == "sandwich" &&
		sw[0].name == "phase_one" && Math.abs(sw[0].samples - f.samples) < 1e-6 * f.samples &&
		Math.abs(sw[1].samples - f.samples) < 1e-6 * f.samples, [sw, f]);
	check("...and its callers from the range only", await page.evaluate(() =>
		ember.find("main", "callers") >= 0 && ember.find("background_work", "callers") < 0 &&
		ember.find("background_work", "callees") < 0));
	await page.click("#back");
	await page.click("#flame");
	// the hash reloads the same range
	const hash = await page.evaluate(() => location.hash);
	const p2 = await open(page_file, hash);
	const s2 = await p2.evaluate(() => ember.timeline.selection());
	check("the URL's range comes back on load", Math.abs(s2.t0 - sel.t0) < 2 && Math.abs(s2.t1 - sel.t1) < 2 &&
		s2.tids[0] == main.tid, [s2, sel]);
	check("...with the same flame graph", Math.abs((await p2.evaluate(() => ember.frame(0).samples)) - root) < 1e-6 * root);
	await close(p2);
	// Escape clears
	await page.keyboard.press("Escape");
	await paint(page);
	check("Escape clears the selection", (await page.evaluate(() => ember.timeline.selection())).t1 == 0 &&
		(await page.evaluate(() => ember.frame(0).samples)) == whole);
	check("...and the URL", await page.evaluate(() => !/range=/.test(location.hash)));
	// clicks select threads, Ctrl-click several
	await page.click(`#tracks [data-tid="${bg.tid}"] .tl-label`);
	await paint(page);
	check("a click selects a thread", (await page.evaluate(() => ember.timeline.selection().tids)).join() == String(bg.tid));
	check("...whose functions alone are shown", await page.evaluate(() => ember.find("phase_one")) < 0 &&
		await page.evaluate(() => ember.find("background_work")) >= 0);
	await page.click(`#tracks [data-tid="${main.tid}"] .tl-label`, { modifiers: ["Control"] });
	await paint(page);
	check("Ctrl-click adds one", (await page.evaluate(() => ember.timeline.selection().tids)).length == 2);
	check("...and both threads are shown", Math.abs((await page.evaluate(() => ember.frame(0).samples)) - whole) < 1e-6 * whole);
	await page.click("#tl-clear");
	check("the button clears", (await page.evaluate(() => ember.timeline.selection().tids)).length == 0);
	// a Ctrl-drag on another track adds its thread to the range's
	await drag(page, main.tid, a + 20000, z - 20000);
	await page.keyboard.down("Control");
	await drag(page, bg.tid, a + 30000, z - 30000);
	await page.keyboard.up("Control");
	const s3 = await page.evaluate(() => ember.timeline.selection());
	check("Ctrl-drag: the range, both threads", s3.tids.length == 2 && s3.tids.includes(bg.tid) &&
		Math.abs(s3.t0 - (a + 30000)) < 5000 && await page.evaluate(() => ember.find("background_work")) >= 0 &&
		await page.evaluate(() => ember.find("phase_one")) >= 0, s3);
	await close(page);
}

async function test_stack({ main }) {
	const page = await open(page_file);
	await page.click("#stack");
	await paint(page);
	check("the stack chart's button is on", await page.evaluate(() => document.getElementById("stack").classList.contains("on")));
	check("the URL names the view", await page.evaluate(() => /mode=stack/.test(location.hash)));
	const st = await page.evaluate(() => ember.timeline.stack());
	const order = [];
	st.boxes.filter((b) => b.tid == main.tid && /^phase_/.test(b.name)).sort((a, b) => a.x - b.x)
		.forEach((b) => { if (order[order.length - 1] != b.name) order.push(b.name); });
	check("the stack chart has the phases in order", order.join() == "phase_one,phase_two,phase_three", order);
	check("...and a band per thread", new Set(st.boxes.map((b) => b.tid)).size == 2);
	// hover a phase's box, then empty space
	const box = st.boxes.filter((b) => b.name == "phase_two").sort((a, b) => b.w - a.w)[0];
	const r = await page.evaluate(() => { const b = document.querySelector("#stackchart canvas").getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; });
	await page.mouse.move(r.x + box.x + Math.max(box.w, 1) / 2, r.y + box.y + 5);
	const d = await page.textContent("#details");
	check("hover shows the frame in #details", /phase_two/.test(d) && /ms/.test(d), d);
	await page.mouse.move(r.x + r.w - 2, r.y + r.h - 2);
	check("...cleared over empty space", (await page.textContent("#details")).trim() == "");
	// wheel zoom around the middle of phase_two, then a drag pans
	const before = await page.evaluate(() => ember.timeline.stack());
	await page.mouse.move(r.x + box.x + box.w / 2, r.y + 40);
	await page.mouse.wheel(0, -400);
	await paint(page);
	const after = await page.evaluate(() => ember.timeline.stack());
	check("the wheel zooms in", after.t1 - after.t0 < 0.7 * (before.t1 - before.t0), [before.t0, before.t1, after.t0, after.t1]);
	await page.mouse.move(r.x + 400, r.y + 40);
	await page.mouse.down();
	await page.mouse.move(r.x + 600, r.y + 40, { steps: 3 });
	await page.mouse.up();
	const panned = await page.evaluate(() => ember.timeline.stack());
	check("a drag pans", panned.t0 < after.t0 && Math.abs((panned.t1 - panned.t0) - (after.t1 - after.t0)) < 1, [after.t0, panned.t0]);
	// search highlights the same frames
	await page.fill("#search", "phase_t");
	await paint(page);
	const hit = await page.evaluate(() => {
		const st = ember.timeline.stack(), c = document.querySelector("#stackchart canvas");
		const b = st.boxes.filter((b) => /^phase_t/.test(b.name)).sort((a, b) => b.w - a.w)[0];
		if (!b) return null;
		const ctx = c.getContext("2d"), dpr = window.devicePixelRatio || 1;
		return [...ctx.getImageData(Math.round((b.x + Math.min(b.w, 20) / 2) * dpr), Math.round((b.y + 1) * dpr), 1, 1).data];
	});
	check("search highlights in the stack chart", hit && hit[0] == 230 && hit[1] == 0 && hit[2] == 230, hit);
	// boxes under 4 pixels wide are written as pixels: each its whole
	// height, its top row and its bottom row the same opaque colour
	const narrow = await page.evaluate(() => {
		const st = ember.timeline.stack(), c = document.querySelector("#stackchart canvas");
		const ctx = c.getContext("2d"), dpr = window.devicePixelRatio || 1, fh = EMBER.frameheight, out = [];
		// (boxes whole inside the canvas: one cut off at its foot has no
		// pixels there)
		const H = c.clientHeight;
		for (const b of st.boxes.filter((b) => b.w * dpr < 4 && b.y > 20 && b.y + fh <= H).slice(0, 200)) {
			// its first pixel, where the page writes it (its middle
			// rounds into the next pixel for one a fraction wide)
			const x = Math.max(0, Math.round(b.x * dpr));
			const top = [...ctx.getImageData(x, Math.round((b.y + 1) * dpr), 1, 1).data];
			const bot = [...ctx.getImageData(x, Math.round((b.y + fh - 3) * dpr), 1, 1).data];
			out.push({ top: top.join(), bot: bot.join(), opaque: top[3] == 255 });
		}
		return out;
	});
	check("narrow boxes in the stack chart drawn their whole height", narrow.length > 0 &&
		narrow.every((n) => n.opaque && n.top == n.bot), [narrow.length, narrow.filter((n) => !n.opaque || n.top != n.bot).slice(0, 3)]);
	// a range selection narrows the stack chart to it
	await page.fill("#search", "");
	const [a, z] = phases.phase_three.map(pageTime);
	await drag(page, main.tid, a + 20000, z - 20000);
	const sc = await page.evaluate(() => ember.timeline.stack());
	check("the stack chart shows the selection", Math.abs(sc.t0 - (a + 20000)) < 5000 &&
		sc.boxes.every((b) => b.tid == main.tid) && sc.boxes.some((b) => b.name == "phase_three") &&
		!sc.boxes.some((b) => b.name == "phase_one"), [sc.t0, sc.t1, a, z]);
	await close(page);
}

// a duration as fmtTime writes it: "N s", "N ms", "N µs"
const labelDur = (l) => labelNs(l);
// a tick's label as nanoseconds: "N s", "N ms", "N µs", "N ns"
function labelNs(l) {
	const m = /^(\d+(?:\.\d+)?) (s|ms|\u00b5s|ns)$/.exec(l);
	return m ? +m[1] * { s: 1e9, ms: 1e6, "\u00b5s": 1e3, ns: 1 }[m[2]] : NaN;
}
// ticks drawn at their times, labelled with them, evenly, a step of 1, 2
// or 5 times a power of ten, at least 50 pixels apart
function checkTicks(what, tk, t0, t1, W, tunit) {
	check(`${what}: ticks`, tk.length >= 3 && tk.length <= W / 50 + 1, tk.length);
	check(`${what}: at their times`, tk.every((k) => Math.abs(k.x - (k.t - t0) / (t1 - t0) * W) < 0.5 &&
		k.t >= t0 - 1e-6 && k.t <= t1 + 1e-6), tk.slice(0, 3));
	check(`${what}: labelled with them`, tk.every((k) => Math.abs(labelNs(k.label) - k.t * tunit) < 1e-6 * Math.max(1, k.t * tunit)),
		tk.map((k) => [k.t, k.label]).slice(0, 4));
	const step = tk.length > 1 ? tk[1].t - tk[0].t : 0, e = Math.pow(10, Math.floor(Math.log10(step * tunit)));
	check(`${what}: evenly, 1, 2 or 5 times a power of ten`, step > 0 && tk.every((k, i) => !i || Math.abs(k.t - tk[i - 1].t - step) < 1e-6 * step) &&
		[1, 2, 5, 10].some((m) => Math.abs(step * tunit - m * e) < 1e-6 * e), [step, tk.map((k) => k.label).slice(0, 4)]);
	check(`${what}: at least 50 pixels apart`, tk.length > 1 && tk[1].x - tk[0].x >= 50, tk.slice(0, 2));
	return step;
}

async function test_axis({ main }) {
	const page = await open(page_file);
	const geo = await page.evaluate(() => {
		const a = document.querySelector("#tracks .tl-axis canvas"), t = document.querySelector("#tracks [data-tid] canvas");
		const r = (e) => { const b = e.getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; };
		return a && { axis: r(a), track: r(t) };
	});
	check("a time axis above the tracks", geo && geo.axis.y < geo.track.y && geo.axis.x == geo.track.x &&
		geo.axis.w == geo.track.w, geo);
	const span = await page.evaluate(() => ember.timeline.span);
	const end = await page.evaluate((x) => ember.timeline.time(x), geo.axis.x + geo.axis.w);
	let ax = await page.evaluate(() => ember.timeline.axis());
	const tunit = await page.evaluate(() => ember.timeline.tunit);
	checkTicks("the tracks' axis", ax.tracks, span[0], end, geo.axis.w, tunit);
	check("...from the recording's start: 0 first", ax.tracks[0].t == 0 && /^0 /.test(ax.tracks[0].label), ax.tracks[0]);
	check("...at the tracks' times",
		(await Promise.all(ax.tracks.map((k) => page.evaluate((x) => ember.timeline.time(x), geo.axis.x + k.x))))
			.every((t, i) => Math.abs(t - ax.tracks[i].t) < (end - span[0]) / geo.axis.w), ax.tracks.slice(0, 3));
	// drawn: a tick's line in the canvas's pixels, none between ticks
	const px = await page.evaluate((xs) => {
		const c = document.querySelector("#tracks .tl-axis canvas"), d = c.width / c.clientWidth;
		return xs.map((x) => [...c.getContext("2d").getImageData(Math.round(x * d), 2, 1, 1).data]);
	}, [ax.tracks[1].x, (ax.tracks[1].x + ax.tracks[2].x) / 2]);
	check("...drawn: the tick's line", px[0][3] == 255 && px[0][0] < 200 && px[1][0] > 200, px);
	check("no selection, no duration", ax.selection === null);
	// the selection's duration, over it and in the bar
	const [a, z] = phases.phase_one.map(pageTime);
	await drag(page, main.tid, a + 20000, z - 20000);
	const sel = await page.evaluate(() => ember.timeline.selection());
	ax = await page.evaluate(() => ember.timeline.axis());
	const d = ax.selection;
	check("the selection's duration over it", d && Math.abs(labelDur(d.label) - (sel.t1 - sel.t0) * tunit) < 0.01 * (sel.t1 - sel.t0) * tunit &&
		Math.abs(d.x - (sel.t0 - span[0]) / (end - span[0]) * geo.axis.w) < 1 &&
		Math.abs(d.w - (sel.t1 - sel.t0) / (end - span[0]) * geo.axis.w) < 1, [d, sel]);
	const bar = await page.textContent("#tl-range");
	check("...and in the bar", d && bar.includes(`(${d.label})`), [bar, d]);
	await page.keyboard.press("Escape");
	// the stack chart's axis follows its zoom
	await page.click("#stack");
	await paint(page);
	const W = await page.evaluate(() => document.querySelector("#stackchart canvas").clientWidth);
	let st = await page.evaluate(() => ember.timeline.stack());
	ax = await page.evaluate(() => ember.timeline.axis());
	const s0 = checkTicks("the stack chart's axis", ax.stack, st.t0, st.t1, W, tunit);
	check("...above its boxes", st.boxes.every((b) => b.y >= 16), st.boxes.map((b) => b.y).sort((a, b) => a - b)[0]);
	const r = await page.evaluate(() => { const b = document.querySelector("#stackchart canvas").getBoundingClientRect(); return { x: b.left, y: b.top }; });
	await page.mouse.move(r.x + 300, r.y + 40);
	await page.mouse.wheel(0, -1000);
	await paint(page);
	st = await page.evaluate(() => ember.timeline.stack());
	ax = await page.evaluate(() => ember.timeline.axis());
	const s1 = checkTicks("the zoomed stack chart's axis", ax.stack, st.t0, st.t1, W, tunit);
	check("...with a finer step", s1 < s0 && ax.stack[0].t >= st.t0, [s0, s1]);
	await page.mouse.move(r.x + 300, r.y + 5);
	check("hover over the axis: no frame", (await page.textContent("#details")).trim() == "");
	await close(page);
}

// the stack chart's zoom and pan in the URL, and back on load
async function test_stackurl({ main }) {
	const page = await open(page_file, "#mode=stack");
	await paint(page);
	check("no stack= before the view moves", await page.evaluate(() => !/stack=/.test(location.hash)));
	const r = await page.evaluate(() => { const b = document.querySelector("#stackchart canvas").getBoundingClientRect(); return { x: b.left, y: b.top }; });
	await page.mouse.move(r.x + 500, r.y + 60);
	await page.mouse.wheel(0, -600);
	await page.mouse.move(r.x + 500, r.y + 60);
	await page.mouse.down();
	await page.mouse.move(r.x + 420, r.y + 60, { steps: 3 });
	await page.mouse.up();
	await page.waitForTimeout(300);
	const st = await page.evaluate(() => ember.timeline.stack());
	const hash = await page.evaluate(() => location.hash);
	const m = /(?:^#|&)stack=(-?[\d.]+)-(-?[\d.]+)(&|$)/.exec(hash);
	check("the URL keeps the stack chart's view", m && Math.abs(+m[1] - st.t0) < 0.01 && Math.abs(+m[2] - st.t1) < 0.01,
		[hash, st.t0, st.t1]);
	check("...beside the view's other state", /mode=stack/.test(hash), hash);
	const p2 = await open(page_file, hash);
	await paint(p2);
	const s2 = await p2.evaluate(() => ember.timeline.stack());
	check("the URL's stack chart view comes back on load", Math.abs(s2.t0 - st.t0) < 0.01 && Math.abs(s2.t1 - st.t1) < 0.01,
		[s2.t0, s2.t1, st.t0, st.t1]);
	const key = (s) => s.boxes.map((b) => `${b.name}@${Math.round(b.x)}+${Math.round(b.w)}`).sort().join();
	check("...with the same boxes", s2.boxes.length > 0 && key(s2) == key(st), [s2.boxes.length, st.boxes.length]);
	await p2.close();
	// a double click restores the whole view, and the URL drops it
	await page.mouse.dblclick(r.x + 500, r.y + 60);
	await page.waitForTimeout(300);
	check("a double click: the whole recording, and no stack= in the URL", await page.evaluate(() =>
		!/stack=/.test(location.hash) && ember.timeline.stack().t0 == ember.timeline.span[0]));
	await close(page);
	// with a range: the view inside it kept, the range too
	const [a, z] = phases.phase_two.map(pageTime);
	const p3 = await open(page_file, `#mode=stack&range=${Math.round(a)}-${Math.round(z)}&stack=${Math.round(a + 1000)}-${Math.round(a + 5000)}`);
	await paint(p3);
	const s3 = await p3.evaluate(() => ember.timeline.stack());
	check("stack= and range= together", Math.abs(s3.t0 - Math.round(a + 1000)) < 0.01 && Math.abs(s3.t1 - Math.round(a + 5000)) < 0.01 &&
		(await p3.evaluate(() => ember.timeline.selection())).t0 == Math.round(a), [s3.t0, s3.t1]);
	await close(p3);
	// nonsense is ignored
	for (const bad of ["stack=9-1", "stack=x-y", "stack=1e9-", "stack=%00"]) {
		const p4 = await open(page_file, "#mode=stack&" + bad);
		await paint(p4);
		const s4 = await p4.evaluate(() => [ember.timeline.stack(), ember.timeline.span]);
		check(`a bad ${bad}: the whole recording`, s4[0].t0 == s4[1][0] && s4[0].t1 > s4[1][1], s4[0].t0);
		await close(p4);
	}
}

// zoom by drag: a drag with Shift held, or one on the time axis, zooms
// to the span it covers (a band drawn while it moves); a plain drag still
// pans; Escape, #stack-reset and a double click go back to the whole
async function test_stackzoom({ main }) {
	const page = await open(page_file, "#mode=stack");
	await paint(page);
	const r = await page.evaluate(() => { const b = document.querySelector("#stackchart canvas").getBoundingClientRect(); return { x: b.left, y: b.top, w: b.width, h: b.height }; });
	const whole = await page.evaluate(() => ember.timeline.stack());
	const W = r.w, px = (s) => (s.t1 - s.t0) / W;
	// the middle of phase_two, by the program's clock
	const [pa, pz] = phases.phase_two.map(pageTime), xo = (t) => Math.round((t - whole.t0) / px(whole));
	const xa = xo(pa + 0.3 * (pz - pa)), xz = xo(pa + 0.7 * (pz - pa)), y = r.y + 60;
	check("phase_two wide enough to drag over", xz - xa > 40, [xa, xz]);
	check("not zoomed at first", !whole.zoomed && !(await page.isVisible("#stack-reset")));
	const title = await page.getAttribute("#stack", "title");
	check("the Stack Chart button's title names the controls", /Shift-drag/.test(title) && /time axis/.test(title) &&
		/Escape/.test(title) && /wheel/.test(title), title);
	// Shift-drag: a band while it moves, the view unchanged until release
	await page.keyboard.down("Shift");
	await page.mouse.move(r.x + xa, y);
	await page.mouse.down();
	await page.mouse.move(r.x + (xa + xz) / 2, y, { steps: 3 });
	const mid = await page.evaluate(() => ember.timeline.stack());
	const band = await page.evaluate(() => {
		const e = document.getElementById("sc-band"), b = e && e.getBoundingClientRect();
		return e && { x: b.left, w: b.width, h: b.height, text: e.textContent, shown: getComputedStyle(e).display != "none" };
	});
	check("Shift-drag: a band while it moves", band && band.shown && Math.abs(band.x - (r.x + xa)) <= 1 &&
		Math.abs(band.w - (xz - xa) / 2) <= 1 && band.h == r.h && /s$/.test(band.text), [band, xa, xz]);
	check("...its span in the hook", mid.band && Math.abs(mid.band.t0 - (whole.t0 + xa * px(whole))) <= px(whole) &&
		Math.abs(mid.band.t1 - (whole.t0 + (xa + xz) / 2 * px(whole))) <= px(whole), mid.band);
	check("...the view unchanged while it moves", mid.t0 == whole.t0 && mid.t1 == whole.t1, [mid.t0, mid.t1]);
	await page.mouse.move(r.x + xz, y, { steps: 2 });
	await page.mouse.up();
	await page.keyboard.up("Shift");
	await paint(page);
	const z = await page.evaluate(() => ember.timeline.stack());
	const e0 = whole.t0 + xa * px(whole), e1 = whole.t0 + xz * px(whole);
	check("Shift-drag zooms to the dragged span (within a pixel)", Math.abs(z.t0 - e0) <= px(whole) &&
		Math.abs(z.t1 - e1) <= px(whole), [z.t0, z.t1, e0, e1, px(whole)]);
	check("...the band gone", !(await page.isVisible("#sc-band")) && z.band === null);
	const phases1 = [...new Set(z.boxes.filter((b) => /^phase_/.test(b.name)).map((b) => b.name))];
	// (the phases are CPU time: a loaded machine leaves gaps in them)
	check("...drawn inside it: of the phases, phase_two only", z.boxes.length > 0 && phases1.join() == "phase_two" &&
		z.boxes.every((b) => b.x >= -1 && b.x + b.w <= W + 1 && b.t + b.d >= z.t0 - px(z) && b.t <= z.t1 + px(z)), phases1);
	check("...the Reset Zoom button shown", z.zoomed && await page.isVisible("#stack-reset"));
	await page.waitForTimeout(300);
	const hash = await page.evaluate(() => location.hash);
	const m = /(?:^#|&)stack=(-?[\d.]+)-(-?[\d.]+)(&|$)/.exec(hash);
	check("...the URL's stack= is the zoom's", m && Math.abs(+m[1] - z.t0) < 0.01 && Math.abs(+m[2] - z.t1) < 0.01, [hash, z.t0, z.t1]);
	const p3 = await open(page_file, hash);
	await paint(p3);
	const s3 = await p3.evaluate(() => ember.timeline.stack());
	check("...and comes back on reload", Math.abs(s3.t0 - z.t0) < 0.01 && Math.abs(s3.t1 - z.t1) < 0.01, [s3.t0, s3.t1]);
	await close(p3);
	// a plain drag still pans, by the pixels moved
	await page.mouse.move(r.x + 600, y);
	await page.mouse.down();
	await page.mouse.move(r.x + 500, y, { steps: 3 });
	await page.mouse.up();
	const pn = await page.evaluate(() => ember.timeline.stack());
	check("a plain drag still pans: the same length", Math.abs((pn.t1 - pn.t0) - (z.t1 - z.t0)) < 1e-6 * (z.t1 - z.t0) &&
		Math.abs(pn.t0 - z.t0 - 100 * px(z)) <= px(z), [pn.t0, pn.t1, z.t0, z.t1]);
	// a drag on the time axis strip zooms too, without Shift
	await page.mouse.move(r.x + 200, r.y + 8);
	await page.mouse.down();
	await page.mouse.move(r.x + 400, r.y + 8, { steps: 3 });
	await page.mouse.move(r.x + 600, r.y + 8);
	await page.mouse.up();
	const ax = await page.evaluate(() => ember.timeline.stack());
	check("a drag on the time axis zooms to its span", Math.abs(ax.t0 - (pn.t0 + 200 * px(pn))) <= px(pn) &&
		Math.abs(ax.t1 - (pn.t0 + 600 * px(pn))) <= px(pn), [ax.t0, ax.t1, pn.t0]);
	// Escape during a band gives it up; then it resets the zoom, staying
	// in the stack chart
	await page.keyboard.down("Shift");
	await page.mouse.move(r.x + 300, y);
	await page.mouse.down();
	await page.mouse.move(r.x + 500, y, { steps: 3 });
	await page.keyboard.up("Shift");
	await page.keyboard.press("Escape");
	await page.mouse.up();
	const es = await page.evaluate(() => ember.timeline.stack());
	check("Escape during a band: no zoom, no band", es.t0 == ax.t0 && es.t1 == ax.t1 && es.band === null &&
		!(await page.isVisible("#sc-band")), [es.t0, ax.t0]);
	await page.keyboard.press("Escape");
	await page.waitForTimeout(300);
	const ub = await page.evaluate(() => [ember.timeline.stack(), ember.state.mode, location.hash]);
	check("Escape: the whole recording again, still in the stack chart", ub[0].t0 == whole.t0 && ub[0].t1 == whole.t1 &&
		!ub[0].zoomed && ub[1] == "stack", [ub[0].t0, ub[0].t1, ub[1]]);
	check("...no stack= in the URL, no Reset Zoom", !/stack=/.test(ub[2]) && !(await page.isVisible("#stack-reset")), ub[2]);
	// the Reset Zoom button
	await page.keyboard.down("Shift");
	await page.mouse.move(r.x + 300, y);
	await page.mouse.down();
	await page.mouse.move(r.x + 500, y, { steps: 3 });
	await page.mouse.up();
	await page.keyboard.up("Shift");
	check("zoomed again", (await page.evaluate(() => ember.timeline.stack())).zoomed);
	if (await page.isVisible("#stack-reset")) await page.click("#stack-reset");
	const rb = await page.evaluate(() => ember.timeline.stack());
	check("Reset Zoom: the whole recording", rb.t0 == whole.t0 && rb.t1 == whole.t1 && !(await page.isVisible("#stack-reset")),
		[rb.t0, rb.t1]);
	// a Shift-click (no move) changes nothing
	await page.keyboard.down("Shift");
	await page.mouse.click(r.x + 300, y);
	await page.keyboard.up("Shift");
	const sc = await page.evaluate(() => ember.timeline.stack());
	check("a Shift-click does not zoom", sc.t0 == whole.t0 && sc.t1 == whole.t1);
	await close(page);
	// with a range selected: the zoom inside it, Escape back to the range
	const [a, zz] = phases.phase_two.map(pageTime);
	const p4 = await open(page_file, `#mode=stack&range=${Math.round(a)}-${Math.round(zz)}&threads=${main.tid}`);
	await paint(p4);
	const rs = await p4.evaluate(() => ember.timeline.stack());
	await p4.keyboard.down("Shift");
	await p4.mouse.move(r.x + 100, y);
	await p4.mouse.down();
	await p4.mouse.move(r.x + 300, y, { steps: 3 });
	await p4.mouse.up();
	await p4.keyboard.up("Shift");
	const rz = await p4.evaluate(() => ember.timeline.stack());
	check("in a range: Shift-drag zooms inside it", Math.abs(rz.t0 - (rs.t0 + 100 * px(rs))) <= px(rs) &&
		Math.abs(rz.t1 - (rs.t0 + 300 * px(rs))) <= px(rs), [rz.t0, rz.t1, rs.t0, rs.t1]);
	await p4.keyboard.press("Escape");
	const re = await p4.evaluate(() => [ember.timeline.stack(), ember.timeline.selection()]);
	check("...Escape: back to the range, which stays selected", re[0].t0 == rs.t0 && re[0].t1 == rs.t1 &&
		re[1].t0 == Math.round(a) && re[1].t1 == Math.round(zz), [re[0].t0, rs.t0, re[1]]);
	await p4.keyboard.press("Escape");
	check("...a second Escape clears the range", (await p4.evaluate(() => ember.timeline.selection())).t1 == 0);
	await close(p4);
}

async function test_untimed() {
	const page = await open(folded_page);
	check("folded input: no tracks", await page.evaluate(() => !document.getElementById("tracks")));
	check("folded input: no stack chart", await page.evaluate(() => document.getElementById("stack").hidden));
	check("folded input: the flame graph as before", await page.evaluate(() => ember.frame(0).samples) == 50);
	await close(page);
	// a damaged sample table: a message, the flame graph still there
	const bad = path.join(tmp, "bad.html");
	fs.writeFileSync(bad, fs.readFileSync(page_file, "utf8").replace(/(class="ember-tsamples">)[A-Za-z]/, "$1!"));
	const p2 = await open(bad);
	check("damaged samples: said so", /cannot show the samples/.test(await p2.textContent("#tl-range")));
	check("damaged samples: the flame graph is drawn", await p2.evaluate(() => ember.frame(0).samples) > 0);
	await close(p2);
}

// perf.data through `ember collapse perf -o x.html` (where perf records)
async function test_perfdata() {
	const data = path.join(tmp, "p.data"), html = path.join(tmp, "p.html");
	try {
		execFileSync("perf", ["record", "-q", "-g", "-F", "499", "-o", data, "--", prog, "0.05"],
			{ stdio: ["ignore", "ignore", "pipe"] });
	} catch (e) {
		console.log(`timeline: perf.data skipped: ${String(e.stderr || e.message).split("\n")[0]}`);
		return;
	}
	execFileSync(ember, ["collapse", "perf", "-q", data, "-o", html], { stdio: ["ignore", "ignore", "pipe"] });
	const page = await open(html);
	const tids = await page.evaluate(() => [...document.querySelectorAll("#tracks [data-tid]")].map((e) => e.textContent));
	check("perf.data: a track per thread", tids.length == 2 && tids.some((t) => t.startsWith("<b onclick=x> (")), tids);
	await close(page);
}

(async () => {
	browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update",
			"--disable-sync"],
	});
	let tracks = null;
	for (const t of [test_tracks, test_range, test_stack, test_axis, test_stackurl, test_stackzoom, test_untimed, test_perfdata]) {
		try {
			const r = await t(tracks);
			if (t == test_tracks) tracks = r;
		} catch (e) {
			check(`${t.name} ran`, false, process.env.VERBOSE ? e.message : e.message.split("\n")[0]);
		}
	}
	check("no JavaScript errors", errors.length == 0, errors.slice(0, 5));
	check("no network", requests.length == 0, requests.slice(0, 3));
	await browser.close();
	finish();
})().catch((e) => {
	check("the suite ran", false, e.message);
	finish();
});
