// Interactivity of flame-graph SVGs in headless Chromium: the time to load,
// to zoom with one click and to run one search, each until the next paint
// (two animation frames after the action).
//
//   node bench/browser.js [--runs N] [--term REGEXP] TOOL/CASE=FILE.svg...
//
// Prints, per SVG, its frame count and size, and the best (and median) of
// N runs, each on a freshly loaded page; then, for every TOOL other than
// ember, how many times slower it is than ember on the same CASE.  The
// click goes to the widest child of the root, the search is answered by
// a stubbed window.prompt; both work the same on flamegraph.pl's SVGs and
// on ember's.
"use strict";
const fs = require("fs");
const path = require("path");
const { chromium } = require(path.join(__dirname,
	"../tests/browser/node_modules/playwright-core"));

const args = process.argv.slice(2);
let runs = 3, term = "malloc";
const svgs = [];
for (let i = 0; i < args.length; i++) {
	if (args[i] == "--runs") runs = +args[++i];
	else if (args[i] == "--term") term = args[++i];
	else svgs.push(args[i].split(/=(.*)/s).slice(0, 2));
}
for (const [label, file] of svgs)
	if (!file || !label.includes("/")) {
		console.error(`bench/browser.js: ${label}: want TOOL/CASE=FILE.svg`);
		process.exit(2);
	}

// In the page: the rect of the widest child of the root, by geometry.
function target() {
	const rs = [...document.querySelectorAll("#frames rect")];
	if (!rs.length) return null;
	const a = (r, k) => parseFloat(r.getAttribute(k));
	const root = rs.reduce((m, r) => a(r, "width") > a(m, "width") ? r : m);
	const step = a(root, "height") + 1, y = a(root, "y");
	let best = null;
	for (const r of rs) {
		if (Math.abs(Math.abs(a(r, "y") - y) - step) > 0.01) continue;
		if (!best || a(r, "width") > a(best, "width")) best = r;
	}
	return best;
}

// In the page: does something, resolves with ms until the next paint.
function timed([what, term]) {
	return new Promise((resolve) => {
		const t0 = performance.now();
		if (what == "zoom") {
			window.__target.dispatchEvent(new MouseEvent("click",
				{ bubbles: true, cancelable: true, view: window }));
		} else {
			window.prompt = () => term;
			document.getElementById("search").dispatchEvent(
				new MouseEvent("click", { bubbles: true, view: window }));
		}
		requestAnimationFrame(() => requestAnimationFrame(() =>
			resolve(performance.now() - t0)));
	});
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function measure(browser, file) {
	const page = await browser.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(e.message));
	await page.addInitScript(() => {
		window.addEventListener("load", () => requestAnimationFrame(() =>
			requestAnimationFrame(() => {
				window.__loaded = performance.now();
			})));
	});
	await page.goto("file://" + path.resolve(file),
		{ waitUntil: "load", timeout: 300000 });
	await page.waitForFunction(() => window.__loaded, null,
		{ timeout: 300000 });
	const r = { load: await page.evaluate(() => window.__loaded) };
	r.frames = await page.evaluate(() =>
		document.querySelectorAll("#frames rect").length);
	const found = await page.evaluate(`(${target})() &&
		(window.__target = (${target})(), true)`);
	await sleep(300);
	r.zoom = found ? await page.evaluate(timed, ["zoom"]) : NaN;
	await sleep(300);
	r.search = await page.evaluate(timed, ["search", term]);
	r.matched = await page.evaluate(() =>
		document.getElementById("matched").textContent);
	r.errors = errors;
	await page.close();
	return r;
}

function stats(xs) {
	const s = xs.filter((x) => !isNaN(x)).sort((a, b) => a - b);
	return { best: s[0], median: s[(s.length - 1) >> 1] };
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu",
			"--disable-quic", "--no-first-run",
			"--disable-background-networking",
			"--disable-component-update", "--disable-sync"],
	});
	// runs interleaved, so that a busy moment of the machine does not
	// fall on one SVG only
	const out = {}, all = svgs.map(() => []);
	for (let k = 0; k < runs; k++)
		for (let j = 0; j < svgs.length; j++)
			all[j].push(await measure(browser, svgs[j][1]));
	for (const [j, [label, file]] of svgs.entries()) {
		const rs = all[j];
		const mb = fs.statSync(file).size / 1e6;
		const res = { frames: rs[0].frames, mb };
		console.log(`  ${label}: ${rs[0].frames} frames, ${mb.toFixed(1)} MB,` +
			` search /${term}/ ${rs[0].matched}`);
		for (const k of ["load", "zoom", "search"]) {
			const st = stats(rs.map((r) => r[k]));
			res[k] = st.best;
			console.log(`    ${k.padEnd(7)} ${st.best.toFixed(0).padStart(7)} ms` +
				` best of ${runs}  (median ${st.median.toFixed(0)} ms)`);
		}
		const errs = [...new Set(rs.flatMap((r) => r.errors))];
		if (errs.length) console.log(`    page errors: ${errs.join("; ")}`);
		out[label] = res;
	}
	await browser.close();
	for (const label in out) {
		const [tool, c] = label.split("/"), e = out["ember/" + c];
		if (tool == "ember" || !e) continue;
		const r = (k) => (out[label][k] / e[k]).toFixed(1) + "x";
		console.log(`  ${label} vs ember/${c}: load ${r("load")}, ` +
			`zoom ${r("zoom")}, search ${r("search")} (time ratio)`);
	}
})().catch((e) => {
	console.error("bench/browser.js: " + e.message);
	process.exit(1);
});
