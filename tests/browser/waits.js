// The HTML viewer's tracks of off-CPU and wall-clock recordings in
// headless Chromium: a program that spins, sleeps, then spins again on
// one thread (tests/record/naps.c) recorded for real with `ember record
// --wall` and `--off-cpu`.  The phases' times come from the program's own
// clock (CLOCK_MONOTONIC, as the page's EMBER.timeline.start).  Checks
// that the track's waiting graph covers the nap and its CPU graph does
// not (ember.timeline.activity and the canvas's pixels), that a range in
// the middle of the nap shows the nap (a wait counts the part of it in
// the range), and that the stack chart draws the wait as long as it
// lasted, also when the nap is the recording's last sample (the tracks
// reach the end of the last wait).  Skips without perf_event_open.  Ends with
// "waits: N passed, M failed".
"use strict";
const path = require("path");
const { execFileSync } = require("child_process");
const { chromium } = require("playwright-core");

const { top, ember, tmp, check, finish } = require("./suite")("waits");

const prog = path.join(tmp, "naps");
try {
	execFileSync(process.env.CC || "cc", ["-O2", "-g", "-fno-omit-frame-pointer",
		"-o", prog, path.join(top, "tests/record/naps.c")]);
	execFileSync(ember, ["record", "-q", "--wall", "-o", path.join(tmp, "probe.folded"),
		"--", prog, "0.01"], { stdio: ["ignore", "ignore", "pipe"] });
} catch (e) {
	console.log(`waits: skipped: cannot compile or record here: ${String(e.stderr || e.message).split("\n")[0]}`);
	finish();
}
function record(opt, file, end) {
	const out = execFileSync(ember, ["record", "-q", opt, "-o", file, "--", prog, "0.15", ...(end ? ["end"] : [])],
		{ stdio: ["ignore", "pipe", "pipe"] }).toString();
	const phases = {};
	for (const l of out.trim().split("\n")) {
		const [name, a, z] = l.split(" ");
		phases[name] = [+a, +z];
	}
	return phases;
}

let browser, errors = [], requests = [];
async function open(file) {
	const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
	const page = await ctx.newPage();
	page.on("pageerror", (e) => errors.push(`${path.basename(file)}: ${e.message}`));
	page.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
	await page.goto("file://" + file);
	await page.waitForFunction(() => window.ember && window.ember.ready &&
		window.ember.timeline && window.ember.timeline.ready);
	return page;
}
const paint = (page) => page.evaluate(() => new Promise((r) =>
	requestAnimationFrame(() => requestAnimationFrame(r))));

// the bins of a track from page time a to z (whole bins only)
function bins(act, a, z) {
	const out = [];
	for (let b = Math.ceil(a / act.bin); (b + 1) * act.bin <= z && b < act.on.length; b++)
		out.push({ on: act.on[b], off: act.off[b], b });
	return out;
}
const sum = (l, k) => l.reduce((s, x) => s + x[k], 0);

// the colours of the canvas's column at page time t, its opaque pixels
async function column(page, tid, t, act) {
	return page.evaluate(({ tid, x }) => {
		const c = document.querySelector(`#tracks [data-tid="${tid}"] canvas`);
		const d = c.getContext("2d").getImageData(Math.round(x * c.width / c.clientWidth), 0, 1, c.height).data;
		const px = [];
		// whole pixels only: the graph's top edge is anti-aliased, and a
		// pixel it barely covers reads back with its colour rounded off
		for (let i = 0; i < d.length; i += 4) if (d[i + 3] == 255) px.push(`${d[i]},${d[i + 1]},${d[i + 2]}`);
		return px;
	}, { tid, x: (t / act.bin + 0.5) * act.px });
}

// end: the program ends with the nap, so that its wait is the last
// sample and the tracks must reach past it
async function test_profile(opt, end) {
	const file = path.join(tmp, `naps${opt}${end ? "-end" : ""}.html`);
	const ph = record(opt, file, end);
	if (end) opt += ", ending with the nap";
	check(`${opt}: the program reports its phases`, ph.busy && ph.nap && (end || ph.busy_again), ph);
	const page = await open(file);
	const start = await page.evaluate(() => EMBER.timeline.start);
	const pt = (us) => us - start;
	const tids = await page.evaluate(() => ember.timeline.threads.map((t) => t.tid));
	check(`${opt}: one track`, tids.length == 1, tids);
	const tid = tids[0];
	const act = await page.evaluate((tid) => ember.timeline.activity(tid), tid);
	check(`${opt}: the activity hook`, act && act.on.length > 100, act && act.on.length);
	if (!act) return page.context().close();
	// the nap less 10 ms at either end (the sleep's own system calls)
	const [a, z] = ph.nap.map(pt), m = 10000;
	const nap = bins(act, a + m, z - m);
	check(`${opt}: the waiting graph covers the nap`, nap.length > 20 &&
		nap.filter((x) => x.off > 0).length >= 0.95 * nap.length, [nap.length, nap.filter((x) => x.off > 0).length]);
	check(`${opt}: ...evenly (the wait spread over its time)`, nap.length &&
		Math.min(...nap.map((x) => x.off)) > 0.5 * Math.max(...nap.map((x) => x.off)),
		[Math.min(...nap.map((x) => x.off)), Math.max(...nap.map((x) => x.off))]);
	check(`${opt}: the CPU graph does not`, sum(nap, "on") <= 0.02 * sum(nap, "off"), [sum(nap, "on"), sum(nap, "off")]);
	if (opt.startsWith("--wall")) {
		const busy = bins(act, pt(ph.busy[0]) + m, pt(ph.busy[1]) - m);
		check(`${opt}: the CPU graph covers the busy phase`, busy.length > 5 && sum(busy, "on") > 0 &&
			busy.filter((x) => x.on > 0).length >= 0.5 * busy.length, busy.slice(0, 10));
		// a wall profile: about the bin's time in each bin, on CPU or not
		check(`${opt}: the nap's bins weigh their time`, Math.abs(sum(nap, "off") / (nap.length * act.bin) - 1) < 0.1,
			[sum(nap, "off"), nap.length * act.bin]);
	}
	// the pixels: the middle of the nap in the waiting colour only, the
	// busy phase's in the CPU colour
	const mid = (a + z) / 2, px = await column(page, tid, mid, act);
	const near = (p, c) => p.split(",").every((v, k) => Math.abs(v - c[k]) <= 8);
	const WAIT = [143, 168, 200], CPU = [217, 112, 42];
	check(`${opt}: the nap's column is drawn in the waiting colour`, px.length > 5 && px.every((p) => near(p, WAIT)), px.filter((p) => !near(p, WAIT)).concat([px.length]));
	if (opt.startsWith("--wall")) {
		let cpu = 0;
		for (let t = pt(ph.busy[0]) + m; t < pt(ph.busy[1]) - m; t += act.bin)
			if ((await column(page, tid, t, act)).some((p) => near(p, CPU))) cpu++;
		check(`${opt}: the busy phase's columns in the CPU colour`, cpu > 5, cpu);
	}
	// a range inside the nap: the nap at >= 80% of it
	await page.evaluate(([a, z]) => ember.timeline.select(a, z), [mid - 30000, mid + 30000]);
	await paint(page);
	const root = await page.evaluate(() => ember.frame(0).samples);
	const i = await page.evaluate(() => ember.find("nap"));
	const f = i >= 0 ? await page.evaluate((i) => ember.frame(i), i) : null;
	check(`${opt}: a range inside the nap shows the nap`, f && root > 0 && f.samples >= 0.8 * root, [f, root]);
	check(`${opt}: ...and weighs the range's time`, Math.abs(root - 60000) < 6000, root);
	check(`${opt}: ...not the busy phases`, await page.evaluate(() => ember.find("busy") < 0 && ember.find("busy_again") < 0));
	await page.evaluate(() => ember.timeline.clear());
	// the stack chart: the nap's box as long as the nap
	await page.click("#stack");
	await paint(page);
	const st = await page.evaluate(() => ember.timeline.stack());
	const W = await page.evaluate(() => document.querySelector("#stackchart canvas").clientWidth);
	const napw = st.boxes.filter((b) => b.name == "nap").reduce((s, b) => Math.max(s, b.w), 0) * (st.t1 - st.t0) / W;
	check(`${opt}: the stack chart draws the wait as long as the nap`, napw >= 0.9 * (z - a), [napw, z - a]);
	await page.context().close();
}

(async () => {
	browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update",
			"--disable-sync"],
	});
	for (const [opt, end] of [["--wall"], ["--off-cpu"], ["--off-cpu", true]]) {
		try {
			await test_profile(opt, end);
		} catch (e) {
			check(`${opt}${end ? " (end)" : ""} ran`, false, process.env.VERBOSE ? e.message : e.message.split("\n")[0]);
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
