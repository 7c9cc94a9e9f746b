// The HTML viewer's timeline in headless Chromium: a page with samples in
// time (bench/gen-timeline.c: 1,000,000 samples on 2 threads) loaded to
// first paint; a time range selected (one thread, then both) until the
// flame graph is drawn again; the stack chart's zoom (the wheel) and
// hover, per event; and the file's size.
//
//   node bench/timeline.js [--runs N] FILE.html
//
// load: navigation start to the second animation frame after the load
// event.  range: the selection made (the hook a drag ends in) to the next
// paint (two animation frames).  zoom, pan and hover: the handler's time
// for each of 20 wheel steps, drag moves and mouse moves (what a frame
// must fit in), the median and the worst.  Best of N fresh page loads.
"use strict";
const fs = require("fs");
const path = require("path");
const { chromium } = require(path.join(__dirname,
	"../tests/browser/node_modules/playwright-core"));

const args = process.argv.slice(2);
let runs = 3, file = null;
for (let i = 0; i < args.length; i++) {
	if (args[i] == "--runs") runs = +args[++i];
	else file = args[i];
}
if (!file) {
	console.error("bench/timeline.js: want FILE.html");
	process.exit(2);
}

const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];

async function measure(browser) {
	const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
	const errors = [];
	page.on("pageerror", (e) => errors.push(e.message));
	await page.addInitScript(() => {
		window.addEventListener("load", () => requestAnimationFrame(() =>
			requestAnimationFrame(() => {
				window.__loaded = performance.now();
			})));
	});
	await page.goto("file://" + path.resolve(file), { waitUntil: "load", timeout: 300000 });
	await page.waitForFunction(() => window.__loaded, null, { timeout: 300000 });
	const r = { load: await page.evaluate(() => window.__loaded) };
	await page.waitForFunction(() => ember.timeline.ready, null, { timeout: 300000 });
	r.ready = await page.evaluate(() => performance.now());
	const paint = () => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
	r.samples = await page.evaluate(() => ember.timeline.threads.reduce((s, t) => s + t.samples, 0));
	// a tenth of the recording, one thread and then every thread
	r.range = await page.evaluate(async (p) => {
		const paint = new Function("return " + p)();
		const tl = ember.timeline, sp = tl.span, out = [];
		for (const tids of [[tl.threads[0].tid], []]) {
			const a = sp[0] + (sp[1] - sp[0]) * 0.3, z = a + (sp[1] - sp[0]) * 0.1;
			const t0 = performance.now();
			tl.select(a, z, tids);
			await paint();
			out.push(performance.now() - t0);
		}
		return out;
	}, paint.toString());
	await page.evaluate(() => ember.timeline.clear());
	await page.click("#stack");
	await page.waitForTimeout(200);
	const events = await page.evaluate(() => {
		const c = document.querySelector("#stackchart canvas"), b = c.getBoundingClientRect();
		const x = b.left + b.width / 2, y = b.top + 60, zoom = [], pan = [], hover = [];
		for (let k = 0; k < 20; k++) {
			const t0 = performance.now();
			c.dispatchEvent(new WheelEvent("wheel", { deltaY: -120, clientX: x, clientY: y,
				bubbles: true, cancelable: true }));
			zoom.push(performance.now() - t0);
		}
		c.dispatchEvent(new MouseEvent("mousedown", { clientX: x, clientY: y, bubbles: true }));
		for (let k = 0; k < 20; k++) {
			const t0 = performance.now();
			document.dispatchEvent(new MouseEvent("mousemove", { clientX: x + 5 * k, clientY: y, bubbles: true }));
			pan.push(performance.now() - t0);
		}
		document.dispatchEvent(new MouseEvent("mouseup", { clientX: x, clientY: y, bubbles: true }));
		for (let k = 0; k < 20; k++) {
			const t0 = performance.now();
			c.dispatchEvent(new MouseEvent("mousemove", { clientX: b.left + 30 * k, clientY: y + 17 * (k % 10),
				bubbles: true }));
			void document.getElementById("details").offsetWidth;
			hover.push(performance.now() - t0);
		}
		return { zoom, pan, hover, boxes: ember.timeline.stack().boxes.length };
	});
	// zoomed all the way out: every sample under a pixel
	r.zoomout = await page.evaluate(() => {
		const c = document.querySelector("#stackchart canvas"), b = c.getBoundingClientRect(), out = [];
		for (let k = 0; k < 10; k++) {
			const t0 = performance.now();
			c.dispatchEvent(new WheelEvent("wheel", { deltaY: 400, clientX: b.left + b.width / 2,
				clientY: b.top + 60, bubbles: true, cancelable: true }));
			out.push(performance.now() - t0);
		}
		return out;
	});
	Object.assign(r, events);
	r.errors = errors;
	await page.close();
	return r;
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update"],
	});
	let best = null;
	for (let k = 0; k < runs; k++) {
		const r = await measure(browser);
		if (r.errors.length) {
			console.log(`  timeline: page errors: ${r.errors.slice(0, 3).join("; ")}`);
			process.exitCode = 1;
		}
		if (!best || r.load < best.load) best = Object.assign({}, r, { range: best ? best.range : r.range });
		best.range = best.range.map((v, i) => Math.min(v, r.range[i]));
	}
	await browser.close();
	const mb = fs.statSync(file).size / 1e6, f = (v) => v.toFixed(1).padStart(7);
	console.log(`  ${best.samples} samples, ${mb.toFixed(1)} MB`);
	console.log(`  load to first paint   ${f(best.load)} ms`);
	console.log(`  tracks ready          ${f(best.ready)} ms (the samples decoded after the first paint)`);
	console.log(`  range, one thread     ${f(best.range[0])} ms to the next paint`);
	console.log(`  range, both threads   ${f(best.range[1])} ms to the next paint`);
	const pr = (what, a) => console.log(`  ${what.padEnd(21)} ${f(median(a))} ms median, ${f(Math.max(...a))} ms worst`);
	pr("stack chart zoom", best.zoom);
	pr("stack chart zoom out", best.zoomout);
	pr("stack chart pan", best.pan);
	pr("stack chart hover", best.hover);
})().catch((e) => {
	console.log(`  timeline: ${e.message}`);
	process.exit(1);
});
