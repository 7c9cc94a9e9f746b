// The interactive SVG in a real browser: headless Chromium, driven by
// playwright-core, over SVGs that `ember flamegraph` draws from the
// conformance inputs.  Ends with "browser: N passed, M failed".
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { execFileSync } = require("child_process");
const { chromium } = require("playwright-core");

const top = path.resolve(__dirname, "../..");
const ember = path.resolve(top, process.env.EMBER || "build/ember");
const inputs = path.join(top, "tests/conformance/flamegraph/inputs");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ember-browser-"));
const FULL = 1180; // --width 1200 less twice xpad
const SEARCH = "rgb(230,0,230)";

let pass = 0, fail = 0, errors = [];
function check(what, ok, detail) {
	if (ok) {
		pass++;
	} else {
		fail++;
		console.log(`FAIL browser: ${what}` +
			(detail === undefined ? "" : `: ${JSON.stringify(detail)}`));
	}
}
const near = (a, b, eps = 0.01) => Math.abs(a - b) <= eps;

// Draws input (a file of the conformance inputs, or folded text) with
// the given options; returns the SVG's path.
let nsvg = 0;
function draw(input, ...opts) {
	let file = path.join(inputs, input);
	if (!fs.existsSync(file)) {
		file = path.join(tmp, `in${nsvg}.folded`);
		fs.writeFileSync(file, input);
	}
	const out = path.join(tmp, `g${nsvg++}.svg`);
	fs.writeFileSync(out, execFileSync(ember, ["flamegraph", ...opts, file],
		{ stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 }));
	return out;
}

// Matched % of a search, from the folded input: the share of the counts
// of lines with a frame whose details match (flamegraph.pl's rounding).
function matched(input, re, timemax) {
	let total = 0, m = 0;
	const text = fs.existsSync(path.join(inputs, input)) ?
		fs.readFileSync(path.join(inputs, input), "utf8") : input;
	for (const line of text.split("\n")) {
		const k = line.lastIndexOf(" ");
		if (k < 0) continue;
		const c = +line.slice(k + 1);
		total += c;
		if (line.slice(0, k).split(";").some((f) => re.test(f + " (")))
			m += c;
	}
	const pct = 100 * m / (timemax || total);
	return "Matched: " + (pct == 100 ? pct : pct.toFixed(1)) + "%";
}

let browser;
async function open(svg, query = "", timeout = 30000) {
	const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
	page.setDefaultTimeout(timeout);
	page.on("pageerror", (e) => errors.push(`${path.basename(svg)}: ${e.message}`));
	page.on("console", (m) => {
		if (m.type() == "error")
			errors.push(`${path.basename(svg)}: ${m.text()}`);
	});
	await page.goto("file://" + svg + query, { timeout });
	await page.waitForFunction(() => document.readyState == "complete");
	return page;
}

// In the page: the rect of frame i, marked for a locator.
function mark(i) {
	document.querySelectorAll("[data-test]").forEach((e) =>
		e.removeAttribute("data-test"));
	[...document.querySelectorAll("#frames title")][i].parentNode
		.querySelector("rect").setAttribute("data-test", "1");
}

// Every frame: details, rect geometry and fill, label, classes, whether
// it shows on the screen, and whether it shows the search colour (its fill,
// or the path that covers narrow frames).  Its path (the names from the
// root) follows from the documented order, pre-order, and the depths as
// loaded: its parent is the last frame before it one level up.
function frames(page) {
	return page.evaluate((SEARCH) => {
	// the path's boxes by y: [x, width], matched to the rects (whose
	// geometry as loaded is rounded to 0.1)
	const cover = document.querySelector("#frames > path"), boxes = {};
	if (cover) for (const m of cover.getAttribute("d").matchAll(
		/M([-\d.e]+) ([-\d.e]+)h([-\d.e]+)/g))
		(boxes[m[2]] = boxes[m[2]] || []).push([+m[1], +m[3]]);
	const covered = (r) => (boxes[r.getAttribute("y")] || []).some((b) =>
		Math.abs(b[0] - r.getAttribute("x")) < 0.06 &&
		Math.abs(b[1] - r.getAttribute("width")) < 0.11);
	const open = [];
	return [...document.querySelectorAll("#frames title")].map((tt) => {
		const g = tt.parentNode, tip = tt.textContent;
		const r = g.querySelector("rect"), t = r.nextElementSibling;
		const b = r.getBoundingClientRect();
		const name = tip.replace(/ \([^(]*\)$/, "");
		const up = fg.inverted ? -1 : 1, y = +r.getAttribute("y");
		while (open.length && (open[open.length - 1][0] - y) * up <= 0)
			open.pop();
		open.push([y, name]);
		return {
			path: open.map((o) => o[1]).join(";"),
			tip, name,
			x: +r.getAttribute("x"), xs: r.getAttribute("x"),
			y: +r.getAttribute("y"), w: +r.getAttribute("width"),
			ws: r.getAttribute("width"), fill: r.getAttribute("fill"),
			label: t && t.localName == "text" ? t.textContent : "",
			lx: t && t.localName == "text" ? +t.getAttribute("x") : null,
			lw: t && t.localName == "text" && t.textContent ?
				t.getComputedTextLength() : 0,
			cls: g.getAttribute("class") || "",
			faded: getComputedStyle(r).opacity == "0.5",
			shown: b.width > 0 || +r.getAttribute("width") == 0,
			cov: covered(r),
			hl: r.getAttribute("fill") == SEARCH || covered(r),
		};
	});
	}, SEARCH);
}
// The first frame whose path (names from the root, ";"-separated) ends
// with spec.
const byName = (fs_, spec) => fs_.find((f) => (";" + f.path).endsWith(";" + spec));

// The rect of the first frame of byName, as a locator.
async function rect(page, spec) {
	const fs_ = await frames(page), i = fs_.indexOf(byName(fs_, spec));
	await page.evaluate(mark, i);
	return page.locator("[data-test]");
}
const text = (page, id) => page.evaluate((id) =>
	document.getElementById(id).textContent, id);
const visible = (page, id) => page.evaluate((id) =>
	getComputedStyle(document.getElementById(id)).display != "none", id);
const query = (page) => page.evaluate(() => location.search);
async function search(page, key, term) {
	let message = null;
	page.once("dialog", (d) => {
		message = d.message();
		term == null ? d.dismiss() : d.accept(term);
	});
	if (key) await page.keyboard.press(key);
	else await page.click("#search");
	await page.waitForTimeout(50);
	return message;
}

// Labels: a prefix of the name, ".." when cut, within the box.
function labels_fit(fs_) {
	return fs_.filter((f) => f.shown && f.label && !(f.lw <= f.w - 3 + 0.5 &&
		(f.label == f.name || f.label.endsWith("..") &&
			f.name.startsWith(f.label.slice(0, -2)))));
}

async function test_hover() {
	const svg = draw("calltree.folded", "--nametype", "Fn&<:");
	const page = await open(svg);
	const fs0 = await frames(page);
	await (await rect(page, "work_a")).hover();
	check("hover shows nametype and details", await text(page, "details") ==
		"Fn&<: " + byName(fs0, "work_a").tip, await text(page, "details"));
	await page.mouse.move(1, 1);
	check("mouseout clears the details", await text(page, "details") == " ");
	await page.close();
}

async function test_zoom(inverted) {
	const opts = inverted ? ["--inverted"] : [];
	const svg = draw("calltree.folded", ...opts);
	const page = await open(svg);
	const fs0 = await frames(page);
	const tag = inverted ? "inverted: " : "";
	const F = byName(fs0, "work_a"), k = FULL / F.w;
	check(tag + "unzoom hidden at first", !(await visible(page, "unzoom")));
	await (await rect(page, "work_a")).click();
	const fs1 = await frames(page);
	const F1 = byName(fs1, "work_a");
	check(tag + "zoomed frame spans the width", F1.x == 10 && near(F1.w, FULL),
		[F1.x, F1.w]);
	check(tag + "zoomed frame is not a parent", !/parent/.test(F1.cls));
	for (const a of ["all", "calltree", "__libc_start_call_main", "main"]) {
		const A = byName(fs1, a);
		check(tag + `ancestor ${a}: class parent, full width, faded`,
			/\bparent\b/.test(A.cls) && A.x == 10 && near(A.w, FULL) &&
			A.faded && A.shown, A);
		check(tag + `ancestor ${a} labelled`, A.label == a ||
			a == "__libc_start_call_main" && A.label.endsWith(".."), A.label);
	}
	check(tag + "ancestors are above when inverted, below otherwise",
		inverted ? byName(fs1, "main").y < F1.y : byName(fs1, "main").y > F1.y);
	// descendants: rescaled from the zoomed frame's left edge
	let bad = [], n = 0;
	for (let i = 0; i < fs0.length; i++) {
		const a = fs0[i], b = fs1[i];
		const inside = a.y != F.y && (inverted ? a.y > F.y : a.y < F.y) &&
			a.x >= F.x - 0.01 && a.x + a.w <= F.x + F.w + 0.11;
		if (!inside) continue;
		n++;
		const eps = 0.1 * k + 0.01;
		if (!near(b.x, 10 + (a.x - F.x) * k, eps) || !near(b.w, a.w * k, eps) ||
			!b.shown || b.y != a.y)
			bad.push([a.tip, a.x, a.w, b.x, b.w]);
	}
	check(tag + "descendants rescaled", n > 10 && !bad.length, bad.slice(0, 3));
	// everything else hidden
	const others = fs1.filter((f, i) => {
		const a = fs0[i];
		return !/parent/.test(f.cls) && f.name != "work_a" &&
			!(a.x >= F.x - 0.01 && a.x + a.w <= F.x + F.w + 0.11 &&
				(inverted ? a.y > F.y : a.y < F.y));
	});
	check(tag + "frames outside the zoom are hidden",
		others.length > 5 && others.every((f) => !f.shown),
		others.filter((f) => f.shown).map((f) => f.tip));
	check(tag + "a hidden frame is not hit",
		await page.evaluate(() => {
			const r = [...document.querySelectorAll("#frames title")]
				.find((t) => t.textContent.startsWith("work_b "))
				.nextElementSibling.getBoundingClientRect();
			return r.width == 0;
		}));
	check(tag + "labels refitted", labels_fit(fs1).length == 0,
		labels_fit(fs1).map((f) => [f.label, f.w]).slice(0, 3));
	check(tag + "zoom labels frames too narrow before",
		fs1.some((f, i) => f.shown && f.label && !fs0[i].label));
	check(tag + "Reset Zoom shown", await visible(page, "unzoom"));
	const q = new URLSearchParams(await query(page));
	check(tag + "URL holds x and y", q.get("x") == F.xs && q.get("y") == String(F.y),
		await query(page));

	// hover inside the zoom: share of the zoomed frame as well
	await (await rect(page, "work_a;leaf_hot")).hover();
	const lh = byName(fs0, "work_a;leaf_hot");
	check(tag + "hover when zoomed gives the share of the zoomed frame",
		(await text(page, "details")).startsWith("Function: " + lh.tip + " [") &&
		(await text(page, "details")).endsWith("% of zoomed frame]"),
		await text(page, "details"));

	// a deeper zoom, then back up by clicking an ancestor
	await (await rect(page, "work_a;leaf_hot")).click();
	let fs2 = await frames(page);
	check(tag + "zoom deeper", byName(fs2, "work_a;leaf_hot").x == 10 &&
		/parent/.test(byName(fs2, "work_a").cls) &&
		!byName(fs2, "work_a;leaf_warm").shown);
	await (await rect(page, "main")).click();
	fs2 = await frames(page);
	const M = byName(fs0, "main");
	check(tag + "clicking a parent zooms out to it",
		byName(fs2, "main").x == 10 && !/parent/.test(byName(fs2, "main").cls) &&
		byName(fs2, "work_b").shown && byName(fs2, "work_a;leaf_warm").shown &&
		near(byName(fs2, "work_b").w, byName(fs0, "work_b").w * FULL / M.w, 0.2) &&
		!byName(fs2, "__GI_____strtod_l_internal").shown);

	// Reset Zoom: exactly as loaded
	await page.click("#unzoom");
	const fs3 = await frames(page);
	const diff = fs3.filter((f, i) => f.xs != fs0[i].xs || f.ws != fs0[i].ws ||
		f.label != fs0[i].label || f.cls != fs0[i].cls || !f.shown ||
		f.faded || f.lx != fs0[i].lx);
	check(tag + "Reset Zoom restores every frame", diff.length == 0,
		diff.slice(0, 2));
	check(tag + "Reset Zoom hides itself", !(await visible(page, "unzoom")));
	check(tag + "Reset Zoom clears x and y", await query(page) == "",
		await query(page));

	// the root unzooms too
	await (await rect(page, "work_b")).click();
	await (await rect(page, "all")).click();
	const fs4 = await frames(page);
	check(tag + "clicking the root unzooms",
		fs4.every((f, i) => f.xs == fs0[i].xs && f.shown && !f.faded) &&
		!(await visible(page, "unzoom")) && await query(page) == "");
	await page.close();
}

async function test_search() {
	const input = "calltree.folded";
	const svg = draw(input, "--minwidth", "0");
	const page = await open(svg);
	const fs0 = await frames(page);
	const msg = await search(page, null, "leaf_");
	check("search prompts for a regexp", msg && msg.includes("regexp allowed, eg: ^ext4_"), msg);
	let fs1 = await frames(page);
	const want = fs0.map((f) => /leaf_/.test(f.tip));
	const wrong = (fs_) => fs_.filter((f, i) => f.hl != want[i] ||
		f.fill != (want[i] && f.w >= 1 ? SEARCH : fs0[i].fill)).map((f) => f.tip);
	check("search highlights the matches, only them", !wrong(fs1).length,
		wrong(fs1));
	check("Matched % as flamegraph.pl's", await text(page, "matched") ==
		matched(input, /leaf_/), [await text(page, "matched"), matched(input, /leaf_/)]);
	check("search button becomes Reset Search",
		await text(page, "search") == "Reset Search");
	check("URL holds s", new URLSearchParams(await query(page)).get("s") == "leaf_");

	// nested matches count once
	await search(page, "F3", "spin|leaf_hot");
	check("nested matches count once", await text(page, "matched") ==
		matched(input, /spin|leaf_hot/), await text(page, "matched"));
	await search(page, "Control+f", "samples");
	check("everything matched: 100%", await text(page, "matched") == "Matched: 100%",
		await text(page, "matched"));

	// ignore case
	await search(page, "Control+f", "LEAF_HOT");
	check("case-sensitive by default", await text(page, "matched") == "Matched: 0.0%",
		await text(page, "matched"));
	await page.keyboard.press("Control+i");
	check("Ctrl-I ignores case and searches again", await text(page, "matched") ==
		matched(input, /leaf_hot/i), await text(page, "matched"));
	check("ic shown on", await page.evaluate(() =>
		document.getElementById("ignorecase").classList.contains("show")));
	check("URL holds i", new URLSearchParams(await query(page)).get("i") == "1");
	const msg2 = await search(page, "F3", "LEAF_WARM");
	check("prompt says case is ignored", msg2 && msg2.includes("ignoring case"));
	await page.click("#ignorecase");
	check("ic button toggles back", await text(page, "matched") == "Matched: 0.0%" &&
		!(await page.evaluate(() =>
			document.getElementById("ignorecase").classList.contains("show"))));

	// narrow matches: covered, then filled once a zoom makes them wide
	await search(page, "F3", "irq");
	fs1 = await frames(page);
	const narrow = fs1.filter((f) => /irq/.test(f.tip) && f.w < 1);
	check("narrow matches covered, not filled", narrow.length > 0 &&
		narrow.every((f) => f.cov && f.fill != SEARCH), narrow.length);
	await (await rect(page, "work_a;leaf_hot;spin;asm_common_interrupt")).click();
	fs1 = await frames(page);
	const shown = fs1.filter((f) => f.shown && /irq/.test(f.tip));
	check("zoom: matches shown highlighted, the wide ones filled",
		shown.length > 3 && shown.every((f) => f.hl && (f.w < 1 || f.fill == SEARCH)) &&
		fs1.filter((f) => f.shown && !/irq/.test(f.tip)).every((f) => !f.hl),
		shown.filter((f) => !f.hl).map((f) => [f.tip, f.w]));
	await page.click("#unzoom");
	fs1 = await frames(page);
	check("unzoom: matches highlighted, only them",
		fs1.every((f, i) => f.hl == /irq/.test(f.tip)));

	// zoom keeps the search
	await search(page, "F3", "spin");
	await (await rect(page, "work_b")).click();
	fs1 = await frames(page);
	check("zoom keeps highlights and Matched %",
		byName(fs1, "work_b;leaf_hot;spin").hl &&
		await text(page, "matched") == matched(input, /spin/));
	await page.click("#unzoom");

	// reset: the button, then Escape
	await page.click("#search");
	fs1 = await frames(page);
	check("Reset Search restores the fills", fs1.every((f, i) =>
		f.fill == fs0[i].fill && !f.hl));
	check("Reset Search hides Matched", !(await visible(page, "matched")) &&
		await text(page, "search") == "Search");
	check("Reset Search clears s", !new URLSearchParams(await query(page)).has("s"));
	await search(page, null, "spin");
	await page.keyboard.press("Escape");
	fs1 = await frames(page);
	check("Escape resets the search", fs1.every((f, i) =>
		f.fill == fs0[i].fill && !f.hl) &&
		await text(page, "search") == "Search");

	// bad regexps and cancelled prompts
	await search(page, null, "(unclosed");
	check("invalid regexp said, no error", await text(page, "matched") ==
		"Invalid regexp");
	await page.keyboard.press("Escape");
	await search(page, "F3", null);
	check("cancelled prompt changes nothing", await text(page, "search") == "Search");
	await page.close();
}

async function test_url() {
	const input = "calltree.folded";
	const svg = draw(input, "--minwidth", "0");
	let page = await open(svg);
	const fs0 = await frames(page);
	await (await rect(page, "work_a;leaf_warm")).click();
	await search(page, null, "irq");
	await page.keyboard.press("Control+i");
	const q = await query(page);
	const fs1 = await frames(page);
	await page.close();
	page = await open(svg, q);
	const fs2 = await frames(page);
	const same = fs2.filter((f, i) => f.xs != fs1[i].xs || f.ws != fs1[i].ws ||
		f.hl != fs1[i].hl || f.shown != fs1[i].shown || f.label != fs1[i].label);
	check("URL restores zoom and search", same.length == 0, [q, same.slice(0, 2)]);
	check("URL restores Matched and ic", await text(page, "matched") ==
		matched(input, /irq/i) && await visible(page, "unzoom"));
	await page.close();
	// flamegraph.pl's own form: x and y of the frame
	const W = byName(fs0, "work_b");
	page = await open(svg, `?x=${W.xs}&y=${W.y}&s=leaf`);
	const fs3 = await frames(page);
	check("x, y and s as flamegraph.pl writes them", byName(fs3, "work_b").x == 10 &&
		/parent/.test(byName(fs3, "main").cls) && await text(page, "matched") ==
		matched(input, /leaf/));
	await page.close();
	page = await open(svg, "?x=1e9&y=%22]&s=%28");
	check("nonsense in the URL is ignored", await text(page, "matched") ==
		"Invalid regexp" && !(await visible(page, "unzoom")));
	await page.close();
}

async function test_labels() {
	const input = "special.folded";
	const svg = draw(input, "--width", "300");
	const page = await open(svg);
	await (await rect(page, "main")).click();
	const fs1 = await frames(page);
	check("labels of odd names fit", labels_fit(fs1).length == 0,
		labels_fit(fs1).map((f) => [f.name, f.label, f.lw, f.w]));
	const L = fs1.find((f) => f.name.startsWith("very_long"));
	check("a long name is cut with ..", L && L.label.endsWith("..") && L.label.length > 5,
		L && L.label);
	await (await rect(page, "<script>alert(1)</script>")).click();
	const S = byName(await frames(page), "<script>alert(1)</script>");
	check("markup in names stays text", S.label == S.name &&
		await page.evaluate(() => !document.querySelector("#frames script")),
		S.label);
	await search(page, null, "^中文|<script>");
	check("search on odd names", await text(page, "matched") ==
		matched(input, /^中文|<script>/), await text(page, "matched"));
	await page.close();
}

async function test_flamechart() {
	const input = "example-perf.folded";
	const svg = draw(input, "--flamechart");
	const page = await open(svg);
	const fs0 = await frames(page);
	// the widest child of the root
	const root = fs0[0];
	const kids = fs0.filter((f) => f.y == root.y - 16);
	const K = kids.reduce((a, b) => b.w > a.w ? b : a);
	const idx = fs0.indexOf(K), k = FULL / K.w;
	await page.evaluate(mark, idx);
	await page.click("[data-test]");
	const fs1 = await frames(page);
	const bad = fs1.filter((f, i) => f.shown && !/parent/.test(f.cls) &&
		!near(f.x, 10 + (fs0[i].x - K.x) * k, 0.1 * k + 0.01));
	check("flamechart: zoom rescales the frames shown", fs1[idx].x == 10 &&
		bad.length == 0 && fs1.filter((f) => f.shown).length > 3, bad.slice(0, 2));
	check("flamechart: labels fit", labels_fit(fs1).length == 0);
	await page.close();
}

async function test_links() {
	const attrs = path.join(tmp, "nameattr");
	fs.writeFileSync(attrs, "work_a\thref=#linked\tclass=lnk\n" +
		"leaf_hot\ttitle=custom tip\n");
	const svg = draw("calltree.folded", "--nameattr", attrs);
	const page = await open(svg);
	check("a linked frame is an <a>", await page.evaluate(() =>
		document.querySelector("#frames a.lnk") != null));
	await (await rect(page, "work_a")).click();
	let fs1 = await frames(page);
	check("click on a link follows it, no zoom",
		await page.evaluate(() => location.hash) == "#linked" &&
		byName(fs1, "work_a").x != 10);
	await page.evaluate(() => history.replaceState(null, "", location.pathname));
	await (await rect(page, "work_a")).click({ modifiers: ["Control"] });
	fs1 = await frames(page);
	check("Ctrl-click on a link zooms, does not follow",
		await page.evaluate(() => location.hash) == "" &&
		byName(fs1, "work_a").x == 10);
	await page.click("#unzoom");
	await (await rect(page, "work_a;leaf_warm")).click();
	fs1 = await frames(page);
	check("click inside a linked frame zooms, does not follow",
		await page.evaluate(() => location.hash) == "" &&
		byName(fs1, "work_a;leaf_warm").x == 10);
	await page.click("#unzoom");
	await page.evaluate(() => {
		const t = [...document.querySelectorAll("#frames title")]
			.find((t) => t.textContent == "custom tip");
		t.nextElementSibling.setAttribute("data-test", "2");
	});
	await page.hover("[data-test='2']");
	check("a nameattr title is the details", await text(page, "details") ==
		"Function: custom tip");
	await page.close();
}

async function test_diff() {
	const input = "diff.folded";
	const svg = draw(input, "--negate");
	const page = await open(svg);
	const fs0 = await frames(page);
	const f = fs0.find((f) => / [+-]\d/.test(f.tip) && f.y < fs0[0].y);
	await (await rect(page, f.name)).click();
	const fs1 = await frames(page);
	check("differential: zoom", byName(fs1, f.name).x == 10 &&
		labels_fit(fs1).length == 0);
	await search(page, null, "[+]");
	check("differential: search on the delta", (await text(page, "matched"))
		.startsWith("Matched: "));
	await page.close();
}

async function test_odd_text() {
	// a carriage return comes out of the XML parser as a line feed, which
	// the script's fast reading of the details does not expect
	const folded = "main;car\rret;leaf 5\nmain;other 3\n";
	const page = await open(draw(folded, "--minwidth", "0"));
	await search(page, null, "^leaf|other");
	check("a carriage return in a name: search", await text(page, "matched") ==
		"Matched: 100%", await text(page, "matched"));
	await (await rect(page, "other")).click();
	const fs1 = await frames(page);
	check("a carriage return in a name: zoom", byName(fs1, "other").x == 10);
	await page.close();
}

// Other options: a zoom fills the width, labels fit, the search counts.
async function test_options() {
	const cases = [["--width", "640", "--height", "22", "--fontsize", "9",
		"--fonttype", "monospace"], ["--total", "1972"], ["--factor", "2.5"],
		["--reverse"], ["--colors", "chain"], ["--minwidth", "0.5%"],
		["--hash", "--inverted", "--subtitle", "s"]];
	for (const opts of cases) {
		const tag = opts.join(" ") + ": ";
		const page = await open(draw("example-perf.folded", ...opts));
		const fs0 = await frames(page);
		const full = (await page.evaluate(() => fg.width)) - 20;
		const kids = fs0.filter((f) => f.path.split(";").length == 2);
		const K = kids.reduce((a, b) => b.w > a.w ? b : a);
		await (await rect(page, K.path)).click();
		const fs1 = await frames(page);
		const K1 = byName(fs1, K.path);
		check(tag + "zoom", K1.x == 10 && near(K1.w, full) &&
			labels_fit(fs1).length == 0, [K1.x, K1.w, labels_fit(fs1).length]);
		await search(page, null, "java|write");
		const want = opts[0] == "--minwidth" ? null :
			matched("example-perf.folded", /java|write/,
				opts[0] == "--total" ? +opts[1] : 0);
		const got = await text(page, "matched");
		check(tag + "search", want ? got == want : /^Matched: \d/.test(got),
			[got, want]);
		await page.close();
	}
}

// The only child of the root: a zoom on it moves nothing.
async function test_only_child() {
	const folded = "main;a;b 5\nmain;a;c 3\nmain;d 2\n";
	const page = await open(draw(folded));
	const fs0 = await frames(page);
	await (await rect(page, "main")).click();
	let fs1 = await frames(page);
	const M = byName(fs0, "main");
	check("only child: zoom", /parent/.test(byName(fs1, "all").cls) &&
		new URLSearchParams(await query(page)).get("x") == M.xs &&
		fs1.every((f, i) => f.name == "all" || f.xs == fs0[i].xs));
	await (await rect(page, "main;a")).click();
	fs1 = await frames(page);
	check("only child: then deeper", byName(fs1, "main;a").x == 10 &&
		!byName(fs1, "main;d").shown && near(byName(fs1, "main;a;b").w,
			FULL * 5 / 8));
	await (await rect(page, "main")).click();
	fs1 = await frames(page);
	check("only child: back up", fs1.every((f, i) => f.shown &&
		near(f.x, fs0[i].x, 0.06) && near(f.w, fs0[i].w, 0.11)));
	await page.close();
}

async function test_big() {
	// enough frames for the work to be visible, not for it to be slow
	let folded = "";
	for (let i = 0; i < 3000; i++)
		folded += `root;mod${i % 7};fn${i % 41};leaf${i} ${1 + i % 13}\n`;
	const svg = draw(folded, "--minwidth", "0");
	const page = await open(svg);
	const n = (await frames(page)).length;
	const t = await page.evaluate(() => new Promise((res) => {
		const r = [...document.querySelectorAll("#frames title")]
			.find((t) => t.textContent.startsWith("mod3 ")).nextElementSibling;
		const t0 = performance.now();
		r.dispatchEvent(new MouseEvent("click", { bubbles: true }));
		requestAnimationFrame(() => requestAnimationFrame(() =>
			res(performance.now() - t0)));
	}));
	const fs1 = await frames(page);
	check(`${n} frames: zoom`, byName(fs1, "mod3").x == 10 &&
		fs1.filter((f) => f.shown).length < n / 5, t);
	await search(page, null, "leaf1[0-9] |fn4 ");
	check(`${n} frames: search`, await text(page, "matched") ==
		matched(folded, /leaf1[0-9] |fn4 /), await text(page, "matched"));
	await page.close();
}

// Stacks deeper than Chromium nests elements (5,000): every frame drawn,
// the deepest ones too, and zoom, search and Reset Zoom at that depth
// (with 100,000 labels, each redraw takes seconds: zoom and search only).
async function test_deep(depth) {
	const chain = (k) => Array.from({ length: k }, (_, i) => "f" + i).join(";");
	const folded = `${chain(depth)} 10\n${chain(depth >> 1)};other 3\ntop2 2\n`;
	const all = depth + 3; // all, f0 .. f<depth-1>, other, top2
	const tag = `${depth} frames deep: `;
	// 100,000 labels take Chromium a while
	const page = await open(draw(folded), "", 300000);
	// rects laid out with a size, and the document's depth
	const drawn = () => page.evaluate(() => {
		let n = 0, deepest = 0;
		for (const r of document.querySelectorAll("#frames rect")) {
			const b = r.getBoundingClientRect();
			if (b.width > 0 && b.height > 0) n++;
			let d = 0;
			for (let p = r; p.parentNode; p = p.parentNode) d++;
			deepest = Math.max(deepest, d);
		}
		return { n, deepest, error: document.querySelector("parsererror") &&
			document.querySelector("parsererror").textContent };
	});
	const d0 = await drawn();
	check(tag + "every frame drawn", d0.n == all && !d0.error, [d0.n, all, d0.error]);
	check(tag + "the document stays shallow", d0.deepest <= 10, d0.deepest);
	// the deepest frame is on the screen: the one under the mouse
	const rectOf = async (name) => page.evaluate(mark, await page.evaluate((name) =>
		[...document.querySelectorAll("#frames title")].findIndex((t) =>
			t.textContent.startsWith(name + " (")), name));
	await rectOf("f" + (depth - 1));
	await page.hover("[data-test]");
	check(tag + "the deepest frame under the mouse", (await text(page, "details"))
		.startsWith(`Function: f${depth - 1} (`), await text(page, "details"));

	// zoom three quarters of the way up: the rest of the chain fills the
	// width, the ancestors too, faded; "other" and "top2" are hidden
	const z = depth * 3 >> 2;
	await rectOf("f" + z);
	await page.evaluate(() => document.querySelector("[data-test]").dispatchEvent(
		new MouseEvent("click", { bubbles: true })));
	const zoomed = await page.evaluate(([z, depth]) => {
		const bad = [], fs = [...document.querySelectorAll("#frames title")];
		let shown = 0;
		for (const t of fs) {
			const r = t.nextElementSibling, b = r.getBoundingClientRect();
			const name = t.textContent.replace(/ \(.*/, ""), k = +name.slice(1);
			const on = name != "other" && name != "top2";
			if (b.width > 0) shown++;
			if (on != (b.width > 0) || on && (r.getAttribute("x") != "10" ||
				Math.abs(r.getAttribute("width") - 1180) > 0.01 ||
				/parent/.test(t.parentNode.getAttribute("class")) !=
					(name == "all" || k < z)))
				bad.push(t.textContent);
		}
		return { shown, bad: bad.slice(0, 3) };
	}, [z, depth]);
	check(tag + `zoom on f${z}`, zoomed.shown == depth + 1 && !zoomed.bad.length &&
		await visible(page, "unzoom"), zoomed);

	// search: the frames whose number ends in 7, highlighted where they are
	await search(page, null, "^f[0-9]*7 ");
	const hl = await page.evaluate(() =>
		document.querySelectorAll('#frames rect[fill="rgb(230,0,230)"]').length);
	check(tag + "search highlights every match", hl == Math.floor((depth + 2) / 10) &&
		await text(page, "matched") == matched(folded, /^f[0-9]*7 /),
		[hl, await text(page, "matched")]);
	if (depth >= 100000) return page.close();
	await page.keyboard.press("Escape");
	await search(page, null, "^(other|top2) ");
	check(tag + "search: Matched %", await text(page, "matched") ==
		matched(folded, /^(other|top2) /), await text(page, "matched"));

	await page.click("#unzoom");
	const d1 = await drawn();
	check(tag + "Reset Zoom draws every frame again", d1.n == all, d1.n);
	await page.close();
}

(async () => {
	browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu",
			"--disable-quic", "--no-first-run",
			"--disable-background-networking",
			"--disable-component-update", "--disable-sync"],
	});
	const zoom = () => test_zoom(false), zoom_inverted = () => test_zoom(true);
	const deep = (d) => Object.defineProperty(() => test_deep(d), "name",
		{ value: `test_deep(${d})` });
	for (const t of [test_hover, zoom, zoom_inverted, test_search, test_url,
		test_labels, test_flamechart, test_links, test_diff, test_odd_text,
		test_options, test_only_child, test_big, deep(300), deep(6000),
		deep(100000)]) {
		try {
			await t();
		} catch (e) { // VERBOSE=1 for the whole message
			check(`${t.name} ran`, false, process.env.VERBOSE ? e.message :
				e.message.split("\n")[0]);
		}
	}
	check("no JavaScript errors", errors.length == 0, errors.slice(0, 5));
	await browser.close();
	fs.rmSync(tmp, { recursive: true, force: true });
	console.log(`browser: ${pass} passed, ${fail} failed`);
	process.exit(fail ? 1 : 0);
})().catch((e) => {
	console.log(`FAIL browser: ${e.message}`);
	console.log(`browser: ${pass} passed, ${fail + 1} failed`);
	process.exit(1);
});
