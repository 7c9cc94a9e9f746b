// The HTML viewer (`ember flamegraph --format html`) in headless Chromium,
// driven by playwright-core with the mouse and the keyboard.  Expected
// numbers come from the folded input, computed here.  Ends with
// "browser html: N passed, M failed".
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { execFileSync } = require("child_process");
const { chromium } = require("playwright-core");

const top = path.resolve(__dirname, "../..");
const ember = path.resolve(top, process.env.EMBER || "build/ember");
const inputs = path.join(top, "tests/conformance/flamegraph/inputs");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ember-html-"));
const SEARCH = "rgb(230,0,230)";

let pass = 0, fail = 0, errors = [];
function check(what, ok, detail) {
	if (ok) {
		pass++;
	} else {
		fail++;
		console.log(`FAIL browser html: ${what}` +
			(detail === undefined ? "" : `: ${JSON.stringify(detail)}`));
	}
}
const near = (a, b, eps = 0.01) => Math.abs(a - b) <= eps;

// Draws input (a conformance input's name, or folded text as a string or
// Buffer) as HTML with the given options; returns the page's path.
let n = 0;
function draw(input, ...opts) {
	let file = path.join(inputs, String(input));
	if (typeof input != "string" || !fs.existsSync(file)) {
		file = path.join(tmp, `in${n}.folded`);
		fs.writeFileSync(file, input);
	}
	const out = path.join(tmp, `g${n++}.html`);
	execFileSync(ember, ["flamegraph", "--format", "html", ...opts, "-o", out, file],
		{ stdio: ["ignore", "ignore", "pipe"] });
	return out;
}

// The folded lines as [frames, count]; and what the viewer must show.
function parse(text) {
	return text.split("\n").filter((l) => /\s\d+(\.\d*)?$/.test(l)).map((l) => {
		const k = l.lastIndexOf(" ");
		return [l.slice(0, k).split(";"), +l.slice(k + 1)];
	});
}
const sum = (ls) => ls.reduce((s, l) => s + l[1], 0);
const through = (ls, f) => ls.filter((l) => l[0].includes(f));

let browser;
async function open(file, { hash = "", dpr = 1, dark = false } = {}) {
	const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 },
		deviceScaleFactor: dpr, colorScheme: dark ? "dark" : "light" });
	const page = await ctx.newPage();
	page.on("pageerror", (e) => errors.push(`${path.basename(file)}: ${e.message}`));
	page.on("console", (m) => {
		if (m.type() == "error") errors.push(`${path.basename(file)}: ${m.text()}`);
	});
	await page.goto("file://" + file + hash);
	await page.waitForFunction(() => window.ember && window.ember.ready);
	return page;
}
const close = (page) => page.context().close();
const text = (page, sel) => page.$eval(sel, (e) => e.textContent);
const state = (page) => page.evaluate(() => JSON.parse(JSON.stringify(ember.state)));
// The centre of the first frame named name in a chart, as drawn.
async function spot(page, name, which) {
	const r = await page.evaluate(([name, which]) =>
		ember.rect(ember.find(name, which), which), [name, which]);
	if (!r) throw new Error(`${name} is not drawn`);
	return { x: r.x + Math.min(r.w / 2, 20), y: r.y + r.h / 2, r };
}
async function click(page, name, which, opts) {
	const s = await spot(page, name, which);
	await page.mouse.click(s.x, s.y, opts);
}
const frameOf = (page, name, which) => page.evaluate(([name, which]) =>
	ember.frame(ember.find(name, which), which), [name, which]);

const TREE = [
	"main;parse;lex 30",
	"main;parse;lex;next 10",
	"main;parse 5",
	"main;eval;call;eval;call;lex 20",
	"main;eval;call 15",
	"main;eval;alloc 12",
	"main;alloc 8",
	"other;alloc 4",
].join("\n") + "\n";
const LINES = parse(TREE), TOTAL = sum(LINES);
const FULL = 1200 - 20 - 15; // viewport less padding and a scrollbar's room

async function test_load() {
	for (const f of fs.readdirSync(inputs)) {
		if (f == "empty.folded") continue;
		const page = await open(draw(f, "--minwidth", "0"));
		const st = await page.evaluate(() => ({ n: ember.chart().tree.n,
			all: ember.frame(0).samples, canvas: document.querySelector("#main canvas").width }));
		const want = sum(parse(fs.readFileSync(path.join(inputs, f), "latin1")));
		check(`${f}: loads, root holds every count`, st.n > 0 && near(st.all, want, 1e-6 * want) &&
			st.canvas > 0, [st, want]);
		await close(page);
	}
	// no input: exit status 1, and on standard output the error page
	const errpage = path.join(tmp, "empty.html");
	try {
		execFileSync(ember, ["flamegraph", "--format", "html", path.join(inputs, "empty.folded")],
			{ stdio: ["ignore", "pipe", "ignore"] });
		check("empty input: exit status 1", false);
	} catch (e) {
		check("empty input: exit status 1", e.status == 1, e.status);
		fs.writeFileSync(errpage, e.stdout);
	}
	const page = await open(errpage);
	check("empty input: an error page", /No valid input/.test(await text(page, "main")));
	await close(page);
}

async function test_hover() {
	const page = await open(draw(TREE, "--minwidth", "0", "--countname", "ms"));
	const s = await spot(page, "parse");
	const height = () => page.$eval("#details", (e) => e.getBoundingClientRect().height);
	const h0 = await height();
	await page.mouse.move(s.x, s.y);
	// the details' line keeps its height, so that the chart above it is
	// not resized (its canvas made again) at each hover
	check("hover: the details as tall as when empty", await height() == h0, [h0, await height()]);
	const p = sum(through(LINES, "parse"));
	const want = `Function: parse (${p} ms, ${(100 * p / TOTAL).toFixed(2)}%)`;
	check("hover: details with samples and % of total", await text(page, "#details") == want,
		await text(page, "#details"));
	check("hover: tooltip with self time", await page.isVisible("#tip") &&
		(await text(page, "#tip")).includes("self: 5 ms"), await text(page, "#tip"));
	check("hover: a highlight box over the frame", await page.$eval("#main .hl", (e) =>
		e.style.display == "block" && Math.abs(parseFloat(e.style.width) - 0) > 1));
	await page.mouse.click(s.x, s.y);
	const l = await spot(page, "lex");
	await page.mouse.move(l.x, l.y);
	const lx = 40;
	check("hover when zoomed: % of the zoomed frame", (await text(page, "#details")).includes(
		`; ${(100 * lx / p).toFixed(2)}% of the zoomed frame`), await text(page, "#details"));
	await page.mouse.move(2, 790);
	check("leaving the chart clears the details", (await text(page, "#details")).trim() == "" &&
		!(await page.isVisible("#tip")));
	await close(page);
}

async function test_zoom() {
	const page = await open(draw(TREE, "--minwidth", "0"));
	check("Reset hidden at first", !(await page.isVisible("#reset")));
	const before = await spot(page, "eval");
	await click(page, "eval");
	const st = await state(page);
	const z = await spot(page, "eval");
	check("click zooms: the frame spans the width", z.r.x == 10 + (await page.evaluate(() =>
		document.querySelector("#main canvas").getBoundingClientRect().left)) &&
		z.r.w > before.r.w * 1.5 && st.zoom > 0, [z.r, before.r]);
	const m = await spot(page, "main"), a = await spot(page, "all");
	check("ancestors kept, full width", near(m.r.w, z.r.w) && near(a.r.w, z.r.w) &&
		m.r.y > z.r.y && a.r.y > m.r.y, [m.r, a.r, z.r]);
	const share = sum(through(LINES, "call")) / sum(through(LINES, "eval"));
	check("descendants rescaled", near((await spot(page, "call")).r.w, share * z.r.w, 1),
		[(await spot(page, "call")).r.w, share * z.r.w]);
	check("siblings outside the zoom not drawn", await page.evaluate(() =>
		ember.rect(ember.find("parse")) == null));
	check("Reset shown, URL has the zoom", await page.isVisible("#reset") &&
		(await page.evaluate(() => location.hash)).includes("zoom=" + st.zoom));
	await page.click("#reset");
	check("Reset: whole graph again", (await state(page)).zoom == 0 &&
		!(await page.isVisible("#reset")) && near((await spot(page, "eval")).r.w, before.r.w));
	await close(page);
}

async function test_icicle() {
	const page = await open(draw(TREE, "--minwidth", "0"));
	const y0 = (await spot(page, "all")).r.y, y1 = (await spot(page, "main")).r.y;
	check("flame graph: root at the bottom", y0 > y1);
	await page.click("#icicle");
	const z0 = (await spot(page, "all")).r.y, z1 = (await spot(page, "main")).r.y;
	check("icicle: root at the top", z0 < z1 && (await state(page)).icicle &&
		(await page.evaluate(() => location.hash)).includes("view=icicle"), [z0, z1]);
	await page.keyboard.press("i");
	check("'i' toggles back", !(await state(page)).icicle);
	await close(page);
	const p2 = await open(draw(TREE, "--inverted"));
	check("--inverted starts as an icicle", (await state(p2)).icicle &&
		(await spot(p2, "all")).r.y < (await spot(p2, "main")).r.y);
	await close(p2);
}

function matched(ls, re) {
	const m = sum(ls.filter((l) => l[0].some((f) => re.test(f))));
	const p = 100 * m / sum(ls);
	return "Matched: " + (p == 100 ? p : p.toFixed(1)) + "%";
}

async function test_search() {
	const page = await open(draw(TREE, "--minwidth", "0"));
	await page.keyboard.press("Control+f");
	check("Ctrl-F focuses #search", await page.evaluate(() => document.activeElement.id == "search"));
	await page.keyboard.type("^(lex|alloc)$");
	check("search: Matched % of the total, nested matches once",
		await text(page, "#matched") == matched(LINES, /^(lex|alloc)$/), await text(page, "#matched"));
	check("search: matches in the search colour", (await frameOf(page, "lex")).color == SEARCH &&
		(await frameOf(page, "parse")).color != SEARCH);
	check("search in the URL", (await page.evaluate(() => location.hash)).includes(
		"search=" + encodeURIComponent("^(lex|alloc)$")));
	await page.keyboard.press("Escape");
	check("Escape clears the search", await text(page, "#matched") == "" &&
		await page.$eval("#search", (e) => e.value) == "" && (await frameOf(page, "lex")).color != SEARCH);
	await page.keyboard.press("F3");
	check("F3 focuses #search", await page.evaluate(() => document.activeElement.id == "search"));
	await page.keyboard.type("LEX");
	check("case matters by default", await text(page, "#matched") == "Matched: 0.0%");
	await page.click("#ignorecase");
	check("ic ignores case", await text(page, "#matched") == matched(LINES, /lex/i),
		await text(page, "#matched"));
	await page.fill("#search", "(");
	check("a bad regexp says so", await text(page, "#matched") == "Invalid regexp");
	await close(page);
}

async function test_table() {
	const page = await open(draw(TREE, "--minwidth", "0"));
	await page.click("#table");
	const rows = () => page.$$eval("#functions tbody tr", (trs) =>
		trs.map((tr) => [...tr.children].map((td) => td.textContent)));
	let r = await rows();
	const fnames = [...new Set(LINES.flatMap((l) => l[0]))];
	const self = (f) => sum(LINES.filter((l) => l[0][l[0].length - 1] == f));
	const total = (f) => sum(through(LINES, f));
	check("table: one row per function", r.length == fnames.length, r.length);
	check("table: the name first, self and total from the stacks (recursion once)", r.every((row) =>
		+row[1] == self(row[0]) && +row[3] == total(row[0]) &&
		row[2] == (100 * self(row[0]) / TOTAL).toFixed(2) + "%"), r);
	check("table: sorted by self", r.every((row, i) => !i || +r[i - 1][1] >= +row[1]));
	await page.click("#functions th[data-k=total]");
	r = await rows();
	check("table: sorted by total", r.every((row, i) => !i || +r[i - 1][3] >= +row[3]) &&
		r[0][0] == "main", r.map((x) => x[0]));
	await page.click("#functions th[data-k=name]");
	r = await rows();
	check("table: sorted by name", r.map((x) => x[0]).join() == [...fnames].sort().join());
	await page.fill("#filter", "ALLO");
	r = await rows();
	check("table: filter", r.length == 1 && r[0][0] == "alloc", r);
	await page.click("#functions tbody tr");
	check("table row opens the sandwich", (await state(page)).mode == "sandwich" &&
		await page.isVisible("#callers canvas"));
	await close(page);
}

async function test_sandwich() {
	const page = await open(draw(TREE, "--minwidth", "0"));
	const s = await spot(page, "lex");
	await page.mouse.click(s.x, s.y, { button: "right" });
	check("right click: a menu", await page.isVisible("#menu"));
	await page.click("#menu >> text=Sandwich");
	const lx = sum(through(LINES, "lex"));
	const up = await frameOf(page, "lex", "callers"), down = await frameOf(page, "lex", "callees");
	check("sandwich: the function at the root of both", up.depth == 0 && down.depth == 0 &&
		up.samples == lx && down.samples == lx, [up, down]);
	// callers: parse called lex for 40, call for 20; callees: next 10
	check("sandwich: callers merged", (await frameOf(page, "parse", "callers")).samples == 40 &&
		(await frameOf(page, "call", "callers")).samples == 20 &&
		await page.evaluate(() => {
			const t = ember.chart("callers").tree;
			let m = 0;
			for (let i = 0; i < t.n; i++) if (ember.names[t.name[i]] == "main") m += t.width[i];
			return m;
		}) == 60);
	check("sandwich: callees merged", (await frameOf(page, "next", "callees")).samples == 10);
	const a = (await spot(page, "parse", "callers")).r.y, b = (await spot(page, "lex", "callers")).r.y;
	check("sandwich: callers above the function", a < b);
	const c = (await spot(page, "lex", "callees")).r.y, d = (await spot(page, "next", "callees")).r.y;
	check("sandwich: callees below it", c < d);
	check("sandwich in the URL", /sandwich=\d+/.test(await page.evaluate(() => location.hash)));
	await page.keyboard.press("Escape");
	check("Escape: back to the graph", (await state(page)).mode == "graph");
	await close(page);
}

async function test_focus_exclude() {
	const page = await open(draw(TREE, "--minwidth", "0"));
	let s = await spot(page, "alloc");
	await page.mouse.click(s.x, s.y, { button: "right" });
	await page.click("#menu >> text=Focus on");
	check("focus: only stacks through the function", (await frameOf(page, "all")).samples ==
		sum(through(LINES, "alloc")) && await page.evaluate(() => ember.find("parse") < 0));
	check("focus: merged, other roots kept", (await frameOf(page, "other")).samples == 4 &&
		(await frameOf(page, "main")).samples == 20);
	check("focus: a chip and the URL", (await text(page, "#filters")).includes("focus: alloc") &&
		/focus=\d+/.test(await page.evaluate(() => location.hash)));
	await page.click("#filters .chip button");
	check("removing the filter restores", (await frameOf(page, "all")).samples == TOTAL);
	s = await spot(page, "eval");
	await page.mouse.click(s.x, s.y, { button: "right" });
	await page.click("#menu >> text=Exclude");
	check("exclude: stacks through it removed", (await frameOf(page, "all")).samples ==
		TOTAL - sum(through(LINES, "eval")) && await page.evaluate(() => ember.find("call") < 0));
	await close(page);
}

async function test_keys() {
	const page = await open(draw(TREE, "--minwidth", "0"));
	const sel = () => page.evaluate(() => {
		const c = ember.chart();
		return c.sel < 0 ? null : ember.frame(c.sel).name;
	});
	await page.keyboard.press("ArrowUp");
	check("ArrowUp from the root: its widest child", await sel() == "main", await sel());
	await page.keyboard.press("ArrowUp");
	check("ArrowUp again: main's widest child", await sel() == "eval", await sel());
	await page.keyboard.press("ArrowLeft");
	const l = await sel();
	await page.keyboard.press("ArrowRight");
	check("ArrowLeft/Right: neighbours on the row", l != "eval" && await sel() == "eval", [l]);
	check("the selection is in the details", (await text(page, "#details")).startsWith("Function: eval"));
	await page.keyboard.press("Enter");
	check("Enter zooms", (await state(page)).zoom == await page.evaluate(() => ember.find("eval")));
	await page.keyboard.press("ArrowDown");
	check("ArrowDown: the parent", await sel() == "main");
	await page.keyboard.press("Backspace");
	check("Backspace zooms out", (await state(page)).zoom == await page.evaluate(() => ember.find("main")));
	await page.keyboard.press("Escape");
	check("Escape resets the zoom", (await state(page)).zoom == 0);
	await page.keyboard.press("ArrowUp");
	await page.keyboard.press("ArrowUp");
	await page.keyboard.press("x");
	check("'x' excludes the selection", await page.evaluate(() => ember.find("eval") < 0));
	await close(page);
}

async function test_url() {
	const file = draw(TREE, "--minwidth", "0");
	let page = await open(file);
	await click(page, "parse");
	await page.click("#icicle");
	await page.fill("#search", "lex");
	await page.click("#theme");
	const hash = await page.evaluate(() => location.hash), st = await state(page);
	await close(page);
	page = await open(file, { hash });
	const st2 = await state(page);
	check("the URL reopens the same picture", st2.zoom == st.zoom && st2.icicle && st2.search == "lex" &&
		st2.theme == st.theme && await text(page, "#matched") == matched(LINES, /lex/) &&
		(await spot(page, "parse")).r.w > 1000, [hash, st2]);
	await close(page);
	page = await open(file, { hash: "#zoom=99999&focus=x.77777&sandwich=-1&view=%zz&search=%E0" });
	check("a bad URL is ignored, not thrown", (await state(page)).zoom == 0);
	await close(page);
}

async function test_theme() {
	const file = draw(TREE);
	let page = await open(file);
	const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
	const light = await bg();
	check("light by default", await page.evaluate(() => document.documentElement.dataset.theme) == "light");
	await page.click("#theme");
	check("dark theme", await page.evaluate(() => document.documentElement.dataset.theme) == "dark" &&
		await bg() != light && (await page.evaluate(() => location.hash)).includes("theme=dark"));
	await close(page);
	page = await open(file, { dark: true });
	check("dark when the system is", await page.evaluate(() =>
		document.documentElement.dataset.theme) == "dark");
	await close(page);
}

async function test_dpr() {
	const file = draw(TREE);
	for (const dpr of [1, 2, 3]) {
		const page = await open(file, { dpr });
		const c = await page.$eval("#main canvas", (c) => [c.width, c.height,
			c.getBoundingClientRect().width, c.getBoundingClientRect().height]);
		check(`devicePixelRatio ${dpr}: one canvas pixel per device pixel`,
			c[0] == Math.round(c[2] * dpr) && c[1] == Math.round(c[3] * dpr), c);
		await close(page);
	}
}

async function test_options() {
	let page = await open(draw(TREE, "--title", "T </script><b>x", "--subtitle", "sub",
		"--countname", "bytes", "--nametype", "Fn:", "--factor", "2"));
	check("--title, --subtitle as text", await text(page, "h1") == "T </script><b>x" &&
		await page.title() == "T </script><b>x" && await text(page, "#subtitle") == "sub");
	const m = await spot(page, "main");
	await page.mouse.move(m.x, m.y);
	check("--countname, --nametype, --factor", await text(page, "#details") ==
		`Fn: main (${2 * 100} bytes, ${(100 * 100 / TOTAL).toFixed(2)}%)`, await text(page, "#details"));
	await close(page);
	page = await open(draw("diff.folded"));
	const b = await frameOf(page, "b"), c = await frameOf(page, "c");
	check("differential: grew red, shrank blue", /^rgb\(255,\d+,\d+\)$/.test(b.color) &&
		/^rgb\(\d+,\d+,255\)$/.test(c.color), [b.color, c.color]);
	check("differential: the delta in the details", /; \+[\d.]+%\)$/.test(b.text), b.text);
	await close(page);
	page = await open(draw("diff.folded", "--negate"));
	check("--negate swaps them", /,255\)$/.test((await frameOf(page, "b")).color));
	await close(page);
	page = await open(draw("a;b 1\na;c 1\na;b 1\n", "--flamechart"));
	check("--flamechart: time order, not merged", await page.evaluate(() =>
		ember.chart().tree.n) == 5 && await text(page, "h1") == "Flame Chart");
	await close(page);
	const attr = path.join(tmp, "attr.txt");
	fs.writeFileSync(attr, "parse\ttitle=the parser\thref=https://example.com/p\n");
	page = await open(draw(TREE, "--nameattr", attr, "--colors", "blue"));
	const p = await spot(page, "parse");
	await page.mouse.move(p.x, p.y);
	check("--nameattr title and link", await text(page, "#details") == "the parser" &&
		(await text(page, "#tip")).includes("https://example.com/p"));
	check("--colors picks the palette", /^#[0-9a-f]{6}$/.test((await frameOf(page, "eval")).color) &&
		(await frameOf(page, "eval")).color.slice(5) > "a0");
	await close(page);
	page = await open(draw("app;main;work;compute 300\napp;main;work;read;schedule;[off-cpu: S] 500\n" +
		"app;main;nap;[off-cpu: S] 200\napp;read 100\n"));
	const colorsOf = (name) => page.evaluate((name) => {
		const c = ember.chart(), t = c.tree, out = [];
		for (let i = 0; i < t.n; i++) if (ember.names[t.name[i]] == name) out.push(c.color(i));
		return out;
	}, name);
	const blue = (c) => {
		const [r, g, b] = [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16));
		return r == g && b > r + 50;
	};
	const reads = await colorsOf("read"), nap = await colorsOf("nap"), work = await colorsOf("work");
	check("wall-clock graph: off-CPU-only frames in the io palette, others not",
		reads.length == 2 && reads.filter(blue).length == 1 && nap.every(blue) && !work.some(blue),
		[reads, nap, work]);
	await close(page);
	page = await open(draw(TREE, "--reverse"));
	check("--reverse: leaves at the root", await page.evaluate(() => {
		const t = ember.chart().tree, kids = [];
		for (let i = 1; i < t.n; i++) if (t.depth[i] == 1) kids.push(ember.names[t.name[i]]);
		return kids.sort().join();
	}) == "alloc,call,lex,next,parse");
	await close(page);
}

async function test_hostile() {
	const names = ["</script><script>alert(1)</script>", "\"quoted\" 'single' \\back\\",
		"<!-- comment", "a&amp b<i>", "line\u2028sep", "tab\there", "${x}`tpl`"];
	let folded = names.map((nm, i) => `main;${nm};leaf${i} ${i + 1}\n`).join("");
	const bytes = Buffer.concat([Buffer.from(folded), Buffer.from("main;bad\xff\xfe\x80;ctl\x01\x1b 5\n", "latin1")]);
	const page = await open(draw(bytes, "--minwidth", "0"));
	const shown = await page.evaluate(() => ember.names);
	check("names with any bytes are shown as text", names.every((nm) => shown.includes(nm)), shown);
	check("invalid UTF-8 becomes U+FFFD", shown.includes("bad\ufffd\ufffd\ufffd") &&
		shown.includes("ctl\u0001\u001b"), shown);
	check("no injected script ran", await page.evaluate(() => !document.querySelector("main script")));
	const s = await spot(page, "</script><script>alert(1)</script>");
	await page.mouse.move(s.x, s.y);
	check("hover shows such a name", (await text(page, "#details")).includes("</script><script>"));
	await page.fill("#search", "[");
	await page.fill("#search", "script");
	check("search over such names", (await text(page, "#matched")).startsWith("Matched: "));
	await close(page);
	// deep and wide: one 20,000-frame stack, 50,000 siblings
	let deep = "";
	for (let i = 0; i < 20000; i++) deep += (i ? ";" : "") + "f" + (i % 10);
	let wide = deep + " 3\n";
	for (let i = 0; i < 50000; i++) wide += `w;s${i} 1\n`;
	const p2 = await open(draw(wide, "--minwidth", "0"));
	check("20,000 deep and 50,000 wide: loads", await p2.evaluate(() =>
		ember.chart().tree.n) == 20000 + 50001 + 1);
	await p2.keyboard.press("Control+f");
	await p2.keyboard.type("f9");
	check("...and searches", (await text(p2, "#matched")) == matched(parse(wide), /f9/));
	await close(p2);
}

// The frame table (data blocks before the viewer's script): frames left
// out under --minwidth leave their place empty (a frame's own time comes
// before its children's, as flamegraph.pl orders the lines); a damaged
// table is said to be, without a script error.
async function test_table() {
	const lines = "a;b 50\na;c 1\na;d 49\na;d;e 20\nf 30\n";
	const file = draw(lines, "--minwidth", "20");
	const page = await open(file);
	const at = await page.evaluate(() => ["all", "a", "b", "c", "d", "e", "f"].map((nm) => {
		const t = ember.chart().tree, i = ember.find(nm);
		return i < 0 ? null : [t.start[i], t.width[i], t.self[i]];
	}));
	check("table: positions and widths from the stacks, a gap where c was", JSON.stringify(at) ==
		JSON.stringify([[0, 150, 0], [0, 120, 1], [0, 50, 50], null, [51, 69, 49], [100, 20, 20], [120, 30, 30]]), at);
	await close(page);
	const html = fs.readFileSync(file, "utf8");
	check("table: in ember-frames data blocks", /<script type="text\/plain" class="ember-frames">[A-Za-z0-9_-]+<\/script>\n<script>/.test(html));
	for (const [what, bad] of [["a bad digit", html.replace(/(class="ember-frames">[A-Za-z0-9_-]{3})[A-Za-z0-9_-]/, "$1!")],
		["cut short", html.replace(/[A-Za-z0-9_-](<\/script>\n<script>)/, "$1")],
		["one number too many", html.replace(/(<\/script>\n<script>)/, "A$1")]]) {
		const f = path.join(tmp, `bad${n++}.html`);
		fs.writeFileSync(f, bad);
		check(`damaged table (${what}): a different page`, bad != html);
		const before = errors.length, p = await open(f);
		check(`damaged table (${what}): said so, no script error`, /cannot show this profile: the frame table is damaged/.test(
			await text(p, "main")) && errors.length == before, await text(p, "main"));
		await close(p);
	}
}

// A big graph's first table (html.c): its frames 1/16384 of the graph
// wide or more, drawn first; the whole table read in slices after that
// paint, then ember.ready.  The slices' messages are held back here
// (MessageChannel's posts queued until __go()) to see the first paint.
// A graph of fewer than 2^18 frames has none (the whole table is read
// sooner before the first paint than in slices after it).
const NC = 270000, NF = NC + 4;
async function test_first() {
	let small = "a;b 1000000\na;b;x 300000\n";
	for (let k = 0; k < 300; k++) small += `a;c${k} 1\n`;
	const few = draw(small, "--minwidth", "0");
	check("first: none for a small graph (304 frames, 4 wide)", !/class="ember-first"/.test(fs.readFileSync(few, "utf8")));
	const ls = ["a;b 1000000", "a;b;x 300000"];
	for (let k = 0; k < NC; k++) ls.push(`a;c${k} 1`);
	const file = draw(ls.join("\n") + "\n", "--minwidth", "0");
	const html = fs.readFileSync(file, "utf8");
	const m = /first: (\d+), maxdepth: (\d+)/.exec(html);
	check(`first: a table of 4 frames of ${NF} (all, a, b, x), before the whole one`, m && m[1] == "4" && m[2] == "3" &&
		/class="ember-first">[A-Za-z0-9_-]+<\/script>\n<script type="text\/plain" class="ember-frames">/.test(html), m && m[0]);
	const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
	const page = await ctx.newPage();
	page.on("pageerror", (e) => errors.push(`first: ${e.message}`));
	await page.addInitScript(() => {
		const MC = window.MessageChannel, held = [];
		window.__hold = true;
		window.MessageChannel = function () {
			const ch = new MC(), post = ch.port2.postMessage.bind(ch.port2);
			ch.port2.postMessage = (msg) => (window.__hold ? held.push(() => post(msg)) : post(msg));
			return ch;
		};
		window.__go = () => {
			window.__hold = false;
			held.splice(0).forEach((f) => f());
		};
	});
	await page.goto("file://" + file);
	await page.waitForFunction(() => window.ember && window.ember.chart);
	await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
	const first = await page.evaluate(() => {
		const t = ember.chart().tree, b = ember.find("b");
		return { ready: ember.ready, n: t.n, md: t.maxdepth, drawn: !!ember.rect(b),
			w: ["all", "a", "b", "x"].map((nm) => t.width[ember.find(nm)]),
			s: ["a", "b", "x"].map((nm) => t.start[ember.find(nm)]) };
	});
	check("first paint: not ready, the 4 wide frames drawn at their places, as deep as the whole graph",
		JSON.stringify(first) == JSON.stringify({ ready: false, n: 4, md: 3, drawn: true,
			w: [1300000 + NC, 1300000 + NC, 1300000, 300000], s: [0, 0, 1000000] }), first);
	await page.evaluate(() => ember.chart().zoomTo(ember.find("b")));
	await page.evaluate(() => window.__go());
	await page.waitForFunction(() => window.ember.ready);
	const full = await page.evaluate(() => {
		const t = ember.chart().tree;
		return { n: t.n, zoomed: ember.frame(ember.state.zoom).name, c7: t.width[ember.find("c7")],
			tree: JSON.stringify([t.start, t.width, t.self, t.end, t.parent, t.name, t.depth].map((a) => [...a])) };
	});
	check("first: then ready with every frame, still zoomed into b", full.n == NF && full.zoomed == "b" && full.c7 == 1,
		[full.n, full.zoomed, full.c7]);
	await ctx.close();
	// a URL with a state: the whole table first (frame indices are its)
	const p2 = await open(file, { hash: "#zoom=2" });
	const whole = await p2.evaluate(() => {
		const t = ember.chart().tree;
		return JSON.stringify([t.start, t.width, t.self, t.end, t.parent, t.name, t.depth].map((a) => [...a]));
	});
	check("first: the same tree read at once for a URL with a state", whole == full.tree);
	await close(p2);
	for (const [what, bad] of [["first table", html.replace(/(class="ember-first">[A-Za-z0-9_-]{2})[A-Za-z0-9_-]/, "$1!")],
		["whole table", html.replace(/(class="ember-frames">[A-Za-z0-9_-]{5})[A-Za-z0-9_-]/, "$1!")]]) {
		const f = path.join(tmp, `bad${n++}.html`);
		fs.writeFileSync(f, bad);
		const before = errors.length, p = await open(f);
		check(`first: a damaged ${what} said so, no script error`, bad != html && /cannot show this profile: the frame table is damaged/.test(
			await text(p, "main")) && errors.length == before, await text(p, "main"));
		await close(p);
	}
}

(async () => {
	browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update",
			"--disable-sync"],
	});
	for (const t of [test_load, test_hover, test_zoom, test_icicle, test_search,
		test_table, test_sandwich, test_focus_exclude, test_keys, test_url,
		test_theme, test_dpr, test_options, test_hostile, test_table, test_first]) {
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
	console.log(`browser html: ${pass} passed, ${fail} failed`);
	process.exit(fail ? 1 : 0);
})().catch((e) => {
	console.log(`FAIL browser html: ${e.message}`);
	console.log(`browser html: ${pass} passed, ${fail + 1} failed`);
	process.exit(1);
});
