// The HTML viewer in headless Chromium: load to first paint, one
// click-zoom, one search and one hover, on pages `ember flamegraph
// --format html` drew; and each page's size against the SVG of the same
// input.
//
//   node bench/html.js [--runs N] [--term REGEXP] CASE=FILE.html[,FILE.svg]...
//
// load: navigation start to the second animation frame after the load
// event (the first paint of the chart has happened; for a big profile,
// drawn from its wide frames, see html.c).  ready: navigation start to
// ember.ready (the whole frame table read, every frame there), polled
// each animation frame; the rest waits for it.  zoom: a real mouse
// click on the widest child of the root, and search: typing the term into
// #search, each until the next paint (two animation frames, as for the
// SVG in bench/browser.js).  hover: a mouse move over a frame until its
// details are laid out (the handler and the style and layout it causes;
// the browser paints it in its next frame).  transforms: each of the
// right-click menu's (merge, collapse recursion, collapse module, drop,
// focus on a function, focus on a subtree) on the widest frame two levels
// down, from the click on the menu item until the next paint, the chip
// removed between them.  Best of N fresh page loads.
"use strict";
const fs = require("fs");
const path = require("path");
const { chromium } = require(path.join(__dirname,
	"../tests/browser/node_modules/playwright-core"));

const args = process.argv.slice(2);
let runs = 3, term = "malloc";
const pages = [];
for (let i = 0; i < args.length; i++) {
	if (args[i] == "--runs") runs = +args[++i];
	else if (args[i] == "--term") term = args[++i];
	else pages.push(args[i].split(/=(.*)/s).slice(0, 2));
}
for (const [label, files] of pages)
	if (!files) {
		console.error(`bench/html.js: ${label}: want CASE=FILE.html[,FILE.svg]`);
		process.exit(2);
	}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TRANSFORMS = [["merge", "Merge function"], ["recursion", "Collapse recursion"],
	["module", "Collapse module"], ["drop", "Drop samples"], ["focus", "Function only"],
	["subtree", "Subtree only"]];

async function measure(browser, file) {
	const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
	const errors = [];
	page.on("pageerror", (e) => errors.push(e.message));
	await page.addInitScript(() => {
		window.addEventListener("load", () => requestAnimationFrame(() =>
			requestAnimationFrame(() => {
				window.__loaded = performance.now();
			})));
		const poll = () => {
			if (window.ember && window.ember.ready) window.__ready = performance.now();
			else requestAnimationFrame(poll);
		};
		requestAnimationFrame(poll);
	});
	await page.goto("file://" + path.resolve(file), { waitUntil: "load", timeout: 300000 });
	await page.waitForFunction(() => window.__loaded, null, { timeout: 300000 });
	const r = { load: await page.evaluate(() => window.__loaded) };
	await page.waitForFunction(() => window.__ready, null, { timeout: 300000 });
	r.ready = await page.evaluate(() => window.__ready);
	r.frames = await page.evaluate(() => ember.chart().tree.n);
	// the widest child of the root, where it is drawn
	const target = await page.evaluate(() => {
		const t = ember.chart().tree;
		let best = -1;
		for (let i = 1; i < t.n; i = t.end[i])
			if (best < 0 || t.width[i] > t.width[best]) best = i;
		const b = ember.rect(best);
		return b && { x: b.x + b.w / 2, y: b.y + b.h / 2 };
	});
	await sleep(300);
	// hover: the move event's handling, with the layout it causes
	await page.evaluate(() => { window.__t = 0; });
	r.hover = await page.evaluate(({ x, y }) => {
		const c = document.querySelector("#main canvas"), t0 = performance.now();
		c.dispatchEvent(new MouseEvent("mousemove", { clientX: x, clientY: y, bubbles: true }));
		void document.getElementById("tip").offsetWidth;
		return performance.now() - t0;
	}, target);
	await sleep(100);
	await page.evaluate(() => {
		const c = document.querySelector("#main canvas");
		c.addEventListener("click", () => {
			requestAnimationFrame(() => requestAnimationFrame(() => {
				window.__zoomed = performance.now() - window.__t0;
			}));
		}, { capture: true });
		c.addEventListener("mousedown", () => { window.__t0 = performance.now(); }, { capture: true });
	});
	await page.mouse.click(target.x, target.y);
	await page.waitForFunction(() => window.__zoomed);
	r.zoom = await page.evaluate(() => window.__zoomed);
	await sleep(300);
	r.search = await page.evaluate((term) => new Promise((resolve) => {
		const box = document.getElementById("search"), t0 = performance.now();
		box.value = term;
		box.dispatchEvent(new Event("input", { bubbles: true }));
		requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
	}), term);
	r.matched = await page.evaluate(() => document.getElementById("matched").textContent);
	await page.evaluate(() => {
		const box = document.getElementById("search");
		box.value = "";
		box.dispatchEvent(new Event("input", { bubbles: true }));
	});
	const wide = await page.evaluate(() => {
		const t = ember.chart().tree;
		let best = -1;
		for (let i = 1; i < t.n; i++) if (t.depth[i] == 2 && (best < 0 || t.width[i] > t.width[best])) best = i;
		const b = best >= 0 && ember.rect(best);
		return b && { x: b.x + Math.min(b.w / 2, 20), y: b.y + b.h / 2 };
	});
	for (const [k, item] of TRANSFORMS) {
		if (!wide) break;
		await sleep(200);
		await page.mouse.click(wide.x, wide.y, { button: "right" });
		r[k] = await page.evaluate((item) => new Promise((resolve) => {
			const d = [...document.querySelectorAll("#menu div")].find((d) => d.textContent.startsWith(item));
			if (!d) return resolve(NaN);
			const t0 = performance.now();
			d.click();
			requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
		}), item);
		await page.evaluate(() => new Promise((resolve) => {
			const x = document.querySelector("#filters .chip button");
			if (x) x.click();
			else document.getElementById("menu").hidden = true;
			requestAnimationFrame(() => requestAnimationFrame(resolve));
		}));
	}
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
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			"--no-first-run", "--disable-background-networking",
			"--disable-component-update", "--disable-sync"],
	});
	const all = pages.map(() => []);
	for (let k = 0; k < runs; k++)
		for (let j = 0; j < pages.length; j++)
			all[j].push(await measure(browser, pages[j][1].split(",")[0]));
	for (const [j, [label, files]] of pages.entries()) {
		const [html, svg] = files.split(","), rs = all[j];
		const mb = fs.statSync(html).size / 1e6;
		let size = `${mb.toFixed(1)} MB`;
		if (svg && fs.existsSync(svg)) {
			const smb = fs.statSync(svg).size / 1e6;
			size += ` (the SVG: ${smb.toFixed(1)} MB, ${(smb / mb).toFixed(1)}x larger)`;
		}
		console.log(`  ${label}: ${rs[0].frames} frames, ${size}, search /${term}/ ${rs[0].matched}`);
		for (const k of ["load", "ready", "zoom", "search", "hover"]) {
			const st = stats(rs.map((r) => r[k]));
			console.log(`    ${k.padEnd(7)} ${st.best.toFixed(k == "hover" ? 1 : 0).padStart(7)} ms` +
				` best of ${runs}  (median ${st.median.toFixed(k == "hover" ? 1 : 0)} ms)`);
		}
		const tx = TRANSFORMS.map(([k]) => [k, stats(rs.map((r) => r[k]))]).filter(([, st]) => st.best !== undefined);
		if (tx.length)
			console.log(`    transforms: ${tx.map(([k, st]) => `${k} ${st.best.toFixed(0)}`).join(", ")} ms best of ${runs}` +
				` (median ${tx.map(([, st]) => st.median.toFixed(0)).join(", ")})`);
		const errs = [...new Set(rs.flatMap((r) => r.errors))];
		if (errs.length) console.log(`    page errors: ${errs.join("; ")}`);
	}
	await browser.close();
})().catch((e) => {
	console.error("bench/html.js: " + e.message);
	process.exit(1);
});
