// The HTML viewer's views in headless Chromium: the view switcher, Left
// Heavy, the call tree, the transforms of the right-click menu and the
// before/after/difference of `ember diff ... -o d.html`.  Every expected
// tree is computed here from the folded lines, by transforming the stacks
// (the viewer transforms its tree), and compared frame by frame.  Ends
// with "browser views: N passed, M failed".
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { chromium } = require("playwright-core");
const suite = require("./suite.js");

const s = suite("browser views");
const { check } = s;
let errors = [], browser, n = 0;

function write(text) {
	const file = path.join(s.tmp, `in${n++}.folded`);
	fs.writeFileSync(file, text);
	return file;
}
function draw(text, ...opts) {
	const out = path.join(s.tmp, `g${n++}.html`);
	execFileSync(s.ember, ["flamegraph", "--format", "html", ...opts, "-o", out, write(text)],
		{ stdio: ["ignore", "ignore", "pipe"] });
	return out;
}
async function open(file, hash = "") {
	const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
	const page = await ctx.newPage();
	page.on("pageerror", (e) => errors.push(`${path.basename(file)}: ${e.message}`));
	page.on("console", (m) => {
		if (m.type() == "error") errors.push(`${path.basename(file)}: ${m.text()}`);
	});
	await ctx.route(/^(?!file:)/, (r) => {
		errors.push(`network access: ${r.request().url()}`);
		r.abort();
	});
	await page.goto("file://" + file + hash);
	await page.waitForFunction(() => window.ember && window.ember.ready);
	return page;
}
const close = (page) => page.context().close();
const text = (page, sel) => page.$eval(sel, (e) => e.textContent);
const state = (page) => page.evaluate(() => JSON.parse(JSON.stringify(ember.state)));
const hash = (page) => page.evaluate(() => location.hash);

// folded text as [[frames], count]
const parse = (t) => t.split("\n").filter((l) => /\s\d+$/.test(l)).map((l) => {
	const k = l.lastIndexOf(" ");
	return [l.slice(0, k).split(";"), +l.slice(k + 1)];
});
const sum = (ls) => ls.reduce((a, l) => a + l[1], 0);
// The merged tree of the stacks: "all;a;b" -> [total, self]
function treeOf(ls) {
	const m = new Map();
	for (const [st, c] of ls) {
		if (!c) continue;
		let p = "all";
		const add = (key, self) => {
			const v = m.get(key) || [0, 0];
			v[0] += c;
			if (self) v[1] += c;
			m.set(key, v);
		};
		add(p, !st.length);
		st.forEach((f, i) => add(p += ";" + f, i == st.length - 1));
	}
	return m;
}
// The main chart's tree as the same map (frames with time only), and each
// frame's drawn x.
const pageTree = (page) => page.evaluate(() => {
	const c = ember.chart(), t = c.tree, out = [], p = [];
	for (let i = 0; i < t.n; i++) {
		const f = ember.frame(i);
		p[t.depth[i]] = f.name;
		p.length = t.depth[i] + 1;
		if (f.samples > 0) out.push([p.join(";"), f.samples, f.self, (ember.rect(i) || { x: -1 }).x]);
	}
	return out;
});
// Where the main chart's frames lie: each inside its parent, siblings
// apart, the parent's width its children's and its own time; the frames
// that break that.
const badLayout = (page) => page.evaluate(() => {
	const t = ember.chart().tree, bad = [], e = 1e-9 * t.width[0];
	for (let i = 0; i < t.n; i++) {
		const kids = [];
		for (let c = i + 1; c < t.end[i]; c = t.end[c]) if (t.width[c] > 0) kids.push(c); // (0: not drawn)
		kids.sort((a, b) => t.start[a] - t.start[b]);
		let x = t.start[i], sum = t.self[i];
		for (const c of kids) {
			if (t.start[c] < x - e || t.start[c] + t.width[c] > t.start[i] + t.width[i] + e || t.parent[c] != i ||
				t.depth[c] != t.depth[i] + 1)
				bad.push([ember.names[t.name[c]], t.start[c], t.width[c], ember.names[t.name[i]], t.start[i], t.width[i]]);
			x = t.start[c] + t.width[c];
			sum += t.width[c];
		}
		if (t.width[i] > 0 && Math.abs(sum - t.width[i]) > e) bad.push([ember.names[t.name[i]], "children and self", sum, t.width[i]]);
	}
	return bad.slice(0, 4);
});
async function sameTree(page, ls, what) {
	const got = await pageTree(page), want = treeOf(ls);
	const bad = got.filter(([k, tot, self]) => !want.has(k) || want.get(k)[0] != tot || want.get(k)[1] != self);
	check(what, !bad.length && got.length == want.size,
		{ bad: bad.slice(0, 4), got: got.length, want: [...want].slice(0, 12) });
	const lay = await badLayout(page);
	check(`${what}: laid out`, !lay.length, lay);
	return got;
}
async function spot(page, name) {
	const r = await page.evaluate((name) => ember.rect(ember.find(name), ""), name);
	if (!r) throw new Error(`${name} is not drawn`);
	return { x: r.x + Math.min(r.w / 2, 20), y: r.y + r.h / 2, r };
}
async function menu(page, frame, item) {
	const p = await spot(page, frame);
	await page.mouse.click(p.x, p.y, { button: "right" });
	await page.click(`#menu div:has-text(${JSON.stringify(item)})`);
}

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
const selfOf = (ls, f) => sum(ls.filter((l) => l[0][l[0].length - 1] == f));

async function test_switcher() {
	const page = await open(draw(TREE, "--minwidth", "0"));
	for (const name of ["Flame Graph", "Icicle", "Call Tree", "Functions", "Left Heavy"])
		check(`a control named ${name}`, await page.getByRole("button", { name, exact: true }).count() == 1);
	const pressed = (name) => page.getByRole("button", { name, exact: true }).getAttribute("aria-pressed");
	check("Flame Graph pressed at first", await pressed("Flame Graph") == "true" &&
		await pressed("Icicle") == "false");
	await page.getByRole("button", { name: "Icicle", exact: true }).click();
	check("Icicle: the root on top", (await spot(page, "all")).y < (await spot(page, "main")).y &&
		await pressed("Icicle") == "true" && await pressed("Flame Graph") == "false");
	await page.getByRole("button", { name: "Flame Graph", exact: true }).click();
	check("Flame Graph: the root at the bottom", (await spot(page, "all")).y > (await spot(page, "main")).y);
	await page.getByRole("button", { name: "Call Tree", exact: true }).click();
	check("Call Tree: the tree shown, the graph hidden", await page.isVisible("#tree") &&
		!(await page.isVisible("#main")) && (await state(page)).mode == "calltree" &&
		await pressed("Call Tree") == "true");
	await page.getByRole("button", { name: "Functions", exact: true }).click();
	check("Functions: the table shown", await page.isVisible("#functions") && !(await page.isVisible("#tree")));
	const first = await page.$eval("#functions tbody tr", (tr) => [...tr.children].map((td) => td.textContent));
	check("the functions table: a <table>, the name first, its share as N%",
		first[0] == "lex" && /^\d+(\.\d+)?%$/.test(first[2]), first);
	await page.keyboard.press("Escape");
	check("Escape: back to the graph", (await state(page)).mode == "graph");
	// hover: #details and the tooltip, cleared over empty space
	const o = await spot(page, "other");
	await page.mouse.move(o.x, o.y);
	check("hover: the frame in #details", (await text(page, "#details")).startsWith("Function: other (4 samples"));
	await page.mouse.move(o.x, o.y - 3 * o.r.h);
	check("hover over empty space clears #details and the tooltip",
		await text(page, "#details") == "" && !(await page.isVisible("[role=tooltip]")));
	await close(page);
}

// The children's order of every frame as drawn, by their x.
async function orders(page) {
	const got = await pageTree(page), kids = new Map();
	for (const [k, , , x] of got) {
		const i = k.lastIndexOf(";");
		if (i < 0) continue;
		const p = k.slice(0, i);
		if (!kids.has(p)) kids.set(p, []);
		kids.get(p).push([k.slice(i + 1), x]);
	}
	const out = new Map();
	for (const [p, l] of kids) out.set(p, l.sort((a, b) => a[1] - b[1]).map((v) => v[0]).join(","));
	return out;
}
function wantOrders(ls, heavy) {
	const t = treeOf(ls), kids = new Map();
	for (const [k, v] of t) {
		const i = k.lastIndexOf(";");
		if (i < 0) continue;
		const p = k.slice(0, i);
		if (!kids.has(p)) kids.set(p, []);
		kids.get(p).push([k.slice(i + 1), v[0]]);
	}
	const out = new Map();
	for (const [p, l] of kids)
		out.set(p, l.sort((a, b) => (heavy ? b[1] - a[1] : 0) || (a[0] < b[0] ? -1 : 1)).map((v) => v[0]).join(","));
	return out;
}
const sameOrders = (a, b) => a.size == b.size && [...a].every(([k, v]) => b.get(k) == v);

async function test_left_heavy() {
	const HEAVY = "r;a;x 3\nr;a;y 9\nr;b 20\nr;c;z 1\nr;c;w 6\nr;c;v 2\nr;d 7\nq 2\n";
	const ls = parse(HEAVY), file = draw(HEAVY, "--minwidth", "0");
	const page = await open(file);
	check("by name at first", sameOrders(await orders(page), wantOrders(ls, false)),
		[...await orders(page)]);
	await page.getByRole("button", { name: "Left Heavy", exact: true }).click();
	const heavy = wantOrders(ls, true);
	check("Left Heavy: every frame's children by weight, heaviest left",
		sameOrders(await orders(page), heavy), [[...await orders(page)], [...heavy]]);
	await sameTree(page, ls, "Left Heavy: the same frames and weights");
	const h = await hash(page);
	check("Left Heavy in the URL", h.includes("heavy=1"), h);
	await page.getByRole("button", { name: "Icicle", exact: true }).click();
	check("Left Heavy in the icicle too", sameOrders(await orders(page), heavy));
	await close(page);
	const p2 = await open(file, h);
	check("the URL reopens it left-heavy", (await state(p2)).heavy &&
		sameOrders(await orders(p2), heavy));
	await p2.getByRole("button", { name: "Left Heavy", exact: true }).click();
	check("Left Heavy off: by name again", sameOrders(await orders(p2), wantOrders(ls, false)));
	await close(p2);
}

const rows = (page, sel = "#tree") => page.$$eval(`${sel} tbody tr`, (trs) =>
	trs.map((tr) => [...tr.children].map((td) => td.textContent)));
const selRow = (page) => page.$eval("#tree tbody tr.sel td", (td) => td.textContent).catch(() => null);

async function test_calltree() {
	const page = await open(draw(TREE, "--minwidth", "0"));
	await page.click("#calltree");
	let r = await rows(page);
	const roots = [...new Set(LINES.map((l) => l[0][0]))];
	const totalOf = (ls, pre) => sum(ls.filter((l) => pre.every((f, i) => l[0][i] == f)));
	check("top-down: one row per root, total and % from the stacks", r.length == roots.length &&
		r.every((row) => +row[3] == totalOf(LINES, [row[0]]) &&
			row[4] == (100 * totalOf(LINES, [row[0]]) / TOTAL).toFixed(2) + "%"), r);
	check("top-down: heaviest first, collapsed", r[0][0] == "main" &&
		await page.$eval("#tree tbody tr", (tr) => tr.getAttribute("aria-expanded")) == "false");
	await page.focus("#tree");
	await page.keyboard.press("ArrowDown");
	check("ArrowDown selects the first row", await selRow(page) == "main");
	await page.keyboard.press("ArrowRight");
	r = await rows(page);
	const kids = [...new Set(LINES.filter((l) => l[0][0] == "main" && l[0].length > 1).map((l) => l[0][1]))];
	const mainSelf = sum(LINES.filter((l) => l[0].join() == "main"));
	check("ArrowRight expands: the children with their totals", r.length == roots.length + kids.length &&
		kids.every((k) => r.some((row) => row[0] == k && +row[3] == totalOf(LINES, ["main", k]))) &&
		+r[0][1] == mainSelf, r);
	await page.keyboard.press("ArrowRight");
	check("ArrowRight again: the first (heaviest) child", await selRow(page) == "eval", await selRow(page));
	await page.keyboard.press("ArrowRight");
	await page.keyboard.press("ArrowDown");
	check("ArrowDown into the opened child", await selRow(page) == "call", await selRow(page));
	check("details show the selected row", (await text(page, "#details")).startsWith("Function: call (" +
		totalOf(LINES, ["main", "eval", "call"]) + " samples"), await text(page, "#details"));
	await page.keyboard.press("ArrowLeft");
	check("ArrowLeft: to the parent", await selRow(page) == "eval");
	await page.keyboard.press("ArrowLeft");
	check("ArrowLeft again: collapses it", (await rows(page)).length == roots.length + kids.length);
	// inverted: the roots are the functions with self time, total = self
	await page.click("#inverted");
	r = await rows(page);
	const leaves = [...new Set(LINES.map((l) => l[0][l[0].length - 1]))];
	check("inverted: a root per function with self time, total = its self", r.length == leaves.length &&
		r.every((row) => +row[3] == selfOf(LINES, row[0])), r);
	const inv = new Map(r.map((row) => [row[0], +row[3]]));
	await page.click("#table");
	const table = await rows(page, "#functions");
	check("inverted totals equal the functions table's self", table.every((row) =>
		+row[1] == (inv.get(row[0]) || 0)), [table, [...inv]]);
	await page.click("#calltree");
	const lexRow = (await rows(page)).findIndex((row) => row[0] == "lex");
	await page.click(`#tree tbody tr:nth-child(${lexRow + 1})`);
	r = await rows(page);
	const callers = new Map();
	for (const [st, c] of LINES)
		if (st[st.length - 1] == "lex" && st.length > 1)
			callers.set(st[st.length - 2], (callers.get(st[st.length - 2]) || 0) + c);
	const under = r.slice(lexRow + 1, lexRow + 1 + callers.size);
	check("inverted: a function's callers under it, each with the time it carried",
		under.every((row) => callers.get(row[0]) == +row[3]) && under.length == callers.size, [under, [...callers]]);
	check("inverted in the URL", (await hash(page)).includes("inverted=1"));
	// the filter box: only the stacks through a matching function
	await page.click("#inverted");
	await page.fill("#filter", "ALLOC");
	r = await rows(page);
	const thr = LINES.filter((l) => l[0].includes("alloc"));
	check("filter: the stacks through a match", r.filter((row) => row[0] != "main" || true).every((row) =>
		+row[3] == totalOf(thr, [row[0]]) || !roots.includes(row[0])) &&
		r.some((row) => row[0] == "other" && +row[3] == 4) && r.some((row) => row[0] == "main" && +row[3] == 20), r);
	await close(page);

	// wide: 50,000 children of one frame; rows are made for what is open
	let wide = "";
	for (let i = 0; i < 50000; i++) wide += `w;s${i} ${1 + (i % 7)}\n`;
	const p2 = await open(draw(wide, "--minwidth", "0"));
	const t0 = Date.now();
	await p2.click("#calltree");
	await p2.focus("#tree");
	await p2.keyboard.press("ArrowDown");
	await p2.keyboard.press("ArrowRight");
	const rr = await rows(p2);
	check("50,000 children: 1,000 rows and how many more", rr.length == 1 + 1000 + 1 &&
		rr[1001][0] == "49000 more" && +rr[1][3] == 7, [rr.length, rr[1001], rr[1]]);
	check("50,000 children: opened in < 10 s", Date.now() - t0 < 10000, Date.now() - t0);
	await close(p2);
}

// The transforms, on stacks.
const T = {
	merge: (ls, f) => ls.map(([st, c]) => [st.filter((x) => x != f), c]),
	drop: (ls, f) => ls.filter(([st]) => !st.includes(f)),
	recursion: (ls, f) => ls.map(([st, c]) => {
		let out = [];
		for (const x of st) {
			if (x == f && out.includes(f)) out = out.slice(0, out.indexOf(f) + 1);
			else out.push(x);
		}
		return [out, c];
	}),
	fn: (ls, f) => ls.filter(([st]) => st.includes(f)).map(([st, c]) => [st.slice(st.indexOf(f)), c]),
	subtree: (ls, p) => ls.filter(([st]) => p.every((x, i) => st[i] == x)).map(([st, c]) => [st.slice(p.length - 1), c]),
	module: (ls, mod, of) => ls.map(([st, c]) => {
		const out = [];
		for (const x of st) {
			if (of[x] != mod) out.push(x);
			else if (out[out.length - 1] != mod) out.push(mod);
		}
		return [out, c];
	}),
};

async function test_transforms() {
	const file = draw(TREE, "--minwidth", "0");
	let page = await open(file);
	await menu(page, "parse", "Merge function");
	const merged = T.merge(LINES, "parse");
	await sameTree(page, merged, "merge function: the tree without it");
	check("merge function: its self time goes to the caller", (await page.evaluate(() =>
		ember.frame(ember.find("main")).self)) == selfOf(LINES, "parse"));
	check("merge function: a chip", (await text(page, "#filters")).includes("merge: parse"));
	await menu(page, "alloc", "Drop samples with");
	const both = T.drop(merged, "alloc");
	await sameTree(page, both, "then drop samples with a function: in order");
	const h = await hash(page);
	check("transforms in the URL", /tx=m\d+\.d\d+/.test(h), h);
	await close(page);
	page = await open(file, h);
	await sameTree(page, both, "the URL reopens both transforms");
	check("...and their chips", (await page.$$("#filters .chip")).length == 2);
	await page.click("#filters .chip:nth-child(1) button");
	await sameTree(page, T.drop(LINES, "alloc"), "removing the first chip: only the second left");
	await page.click("#filters .chip button");
	await sameTree(page, LINES, "removing both: the profile again");
	await menu(page, "eval", "Collapse recursion");
	await sameTree(page, T.recursion(LINES, "eval"), "collapse recursion: eval inside eval becomes one frame");
	await page.click("#filters .chip button");
	await menu(page, "call", "Function only");
	await sameTree(page, T.fn(LINES, "call"), "focus on a function: all its calls merged");
	await page.click("#filters .chip button");
	const e = await spot(page, "eval");
	await page.mouse.click(e.x, e.y, { button: "right" });
	await page.click("#menu div:has-text('Subtree only')");
	await sameTree(page, T.subtree(LINES, ["main", "eval"]), "focus on a subtree");
	check("focus on a subtree: its chip names the path", (await text(page, "#filters")).includes("main > eval"));
	await page.click("#filters .chip button");
	// transforms apply to what the other views show
	await menu(page, "parse", "Merge function");
	await page.click("#table");
	const tr = await rows(page, "#functions");
	check("the functions table follows the transforms", !tr.some((r) => r[0] == "parse") &&
		+tr.find((r) => r[0] == "main")[1] == selfOf(LINES, "parse"), tr);
	await close(page);

	// modules, by the rule in viewer.js
	const of = {
		"libc.so.6`malloc": "libc.so.6", "libc.so.6`free": "libc.so.6", "[libz.so.1]": "libz.so.1",
		"py::run:/app/x.py": "/app/x.py", "py::step:/app/x.py": "/app/x.py", "py::go:/app/y.py": "/app/y.py",
		"java/util/HashMap.get": "java.util", "Ljava/util/HashMap;::put": "java.util",
		"com.acme.Store.load": "com.acme", "std::vec::Vec::push": "std", "std::io::write": "std",
		"<alloc::vec::Vec<T> as Drop>::drop": "alloc", "memcpy (/usr/lib/libc.so.6)": "libc.so.6", "main": undefined,
	};
	const MOD = ["main;libc.so.6`malloc;libc.so.6`free;[libz.so.1] 5", "main;libc.so.6`free 2",
		"main;memcpy (/usr/lib/libc.so.6) 1",
		"main;py::run:/app/x.py;py::step:/app/x.py;py::go:/app/y.py;py::step:/app/x.py 4",
		"main;java/util/HashMap.get;Ljava/util/HashMap;::put;com.acme.Store.load 3",
		"main;std::vec::Vec::push;std::io::write;<alloc::vec::Vec<T> as Drop>::drop 6"].join("\n") + "\n";
	const ml = parse(MOD);
	page = await open(draw(MOD, "--minwidth", "0"));
	for (const [frame, mod] of [["libc.so.6`malloc", "libc.so.6"], ["py::run:/app/x.py", "/app/x.py"],
		["java/util/HashMap.get", "java.util"], ["std::vec::Vec::push", "std"]]) {
		await menu(page, frame, "Collapse module " + mod);
		await sameTree(page, T.module(ml, mod, of), `collapse module ${mod}: its consecutive frames one frame`);
		check(`collapse module ${mod}: a chip`, (await text(page, "#filters")).includes("collapse: " + mod));
		const h2 = await hash(page);
		await close(page);
		page = await open(draw(MOD, "--minwidth", "0"), h2);
		await sameTree(page, T.module(ml, mod, of), `collapse module ${mod}: kept in the URL`);
		await page.click("#filters .chip button");
	}
	const m = await spot(page, "main");
	await page.mouse.click(m.x, m.y, { button: "right" });
	check("no module, no Collapse module item", !(await text(page, "#menu")).includes("Collapse module"));
	await close(page);
}

// The transforms on a few hundred random stacks (a function in many
// places, under itself, in several modules' runs), one and several in a
// row, from the URL: the same trees as the stacks transformed.
async function test_transforms_many() {
	let seed = 7;
	const rnd = (n) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
	const NAMES = ["a", "b", "c", "d", "e", "std::x", "std::y", "libc.so.6`f"];
	const of = { "std::x": "std", "std::y": "std", "libc.so.6`f": "libc.so.6" };
	const text = [];
	for (let k = 0; k < 400; k++) {
		const st = ["main"];
		for (let d = rnd(8); d > 0; d--) st.push(NAMES[rnd(NAMES.length)]);
		text.push(`${st.join(";")} ${1 + rnd(9)}`);
	}
	const ls = parse(text.join("\n") + "\n"), file = draw(text.join("\n") + "\n", "--minwidth", "0");
	let page = await open(file);
	const id = await page.evaluate(() => Object.fromEntries(ember.names.map((n, i) => [n, i])));
	await close(page);
	const cases = [
		["merge b", `m${id.b}`, T.merge(ls, "b")],
		["merge main", `m${id.main}`, T.merge(ls, "main")],
		["collapse recursion of a", `r${id.a}`, T.recursion(ls, "a")],
		["collapse module std", `l${id["std::x"]}`, T.module(ls, "std", of)],
		["drop c", `d${id.c}`, T.drop(ls, "c")],
		["focus on d", `f${id.d}`, T.fn(ls, "d")],
		["subtree main > e", `s${id.main}-${id.e}`, T.subtree(ls, ["main", "e"])],
		["merge b, drop c, collapse recursion of a, collapse module std",
			`m${id.b}.d${id.c}.r${id.a}.l${id["std::y"]}`,
			T.module(T.recursion(T.drop(T.merge(ls, "b"), "c"), "a"), "std", of)],
		["drop e, then merge a, then drop d", `d${id.e}.m${id.a}.d${id.d}`, T.drop(T.merge(T.drop(ls, "e"), "a"), "d")],
	];
	for (const [what, tx, want] of cases) {
		page = await open(file, "#tx=" + tx);
		await sameTree(page, want.filter(([, c]) => c > 0), `random stacks: ${what}`);
		await page.click("#heavy");
		const lay = await badLayout(page);
		check(`random stacks: ${what}: Left Heavy laid out`, !lay.length, lay);
		await close(page);
	}
}

async function test_hostile() {
	const bad = "<img src=x onerror=\"window.pwned=1\">";
	const page = await open(draw(`main;${bad};leaf 3\nmain;${bad} 2\nmain;b 1\n`, "--minwidth", "0"));
	await menu(page, bad, "Merge function");
	check("a hostile name in a chip, as text", (await text(page, "#filters")).includes("merge: " + bad) &&
		await page.evaluate(() => !document.querySelector("#filters img")));
	await page.click("#filters .chip button");
	await page.click("#calltree");
	await page.focus("#tree");
	await page.keyboard.press("ArrowDown");
	await page.keyboard.press("ArrowRight");
	check("a hostile name in the call tree, as text", (await rows(page)).some((r) => r[0] == bad) &&
		await page.evaluate(() => !document.querySelector("#tree img") && !window.pwned));
	await close(page);
}

async function test_diff() {
	// c grew, b shrank, d is gone after, e is new; a;b;b recursion
	const A = "a;b 10\na;b;b 4\na;c 5\na;d 6\nx 3\n", B = "a;b 4\na;b;b 4\na;c 20\na;e 7\nx 3\n";
	const fa = write(A), fb = write(B), out = path.join(s.tmp, "d.html");
	execFileSync(s.ember, ["diff", fa, fb, "-o", out], { stdio: ["ignore", "ignore", "pipe"] });
	const la = parse(A), lb = parse(B);
	const page = await open(out);
	check("differential: Before, After and Difference toggles", await page.isVisible("#before") &&
		await page.isVisible("#after") && await page.isVisible("#difference") &&
		await page.getAttribute("#difference", "aria-pressed") == "true");
	const color = (name) => page.evaluate((name) => ember.frame(ember.find(name)).color, name);
	check("difference: grew red, shrank blue", /^rgb\(255,\d+,\d+\)$/.test(await color("c")) &&
		/^rgb\(\d+,\d+,255\)$/.test(await color("b")), [await color("c"), await color("b")]);
	await sameTree(page, lb, "difference: the second counts' widths");
	await page.click("#before");
	check("before: the first counts' total", (await page.evaluate(() => ember.frame(0).samples)) == sum(la));
	await sameTree(page, la, "before: the first profile's tree, the stack gone after too");
	check("before: plain colours", !/^rgb\(/.test(await color("b")), await color("b"));
	const h = await hash(page);
	check("before in the URL", h.includes("diff=before"), h);
	await page.click("#after");
	check("after: the second counts' total", (await page.evaluate(() => ember.frame(0).samples)) == sum(lb));
	await sameTree(page, lb, "after: the second profile's tree");
	await close(page);
	const p2 = await open(out, h);
	check("the URL reopens before", (await p2.evaluate(() => ember.frame(0).samples)) == sum(la));
	await p2.click("#difference");
	await p2.click("#table");
	await p2.click("#functions th[data-k=delta]");
	const r = await rows(p2, "#functions");
	const heads = await p2.$$eval("#functions th", (th) => th.map((x) => x.textContent));
	const tot = (ls, f) => sum(ls.filter((l) => l[0].includes(f)));
	const fns = [...new Set([...la, ...lb].flatMap((l) => l[0]))];
	check("the functions table: Before, After and Delta columns", heads.slice(5).join() == "Before,After,Delta", heads);
	check("before, after and delta of every function (recursion once)", r.length == fns.length &&
		r.every((row) => +row[5].replace(/,/g, "") == tot(la, row[0]) && +row[6].replace(/,/g, "") == tot(lb, row[0]) &&
			+row[7].replace(/[,+]/g, "") == tot(lb, row[0]) - tot(la, row[0])), r);
	check("sorted by delta", r.every((row, i) => !i || +r[i - 1][7].replace(/[,+]/g, "") >= +row[7].replace(/[,+]/g, "")) &&
		r[0][0] == "c", r.map((x) => x[0] + x[7]));
	await close(p2);
	// a merge on a differential profile keeps the deltas
	const p3 = await open(out);
	const p = await spot(p3, "b");
	await p3.mouse.click(p.x, p.y, { button: "right" });
	await p3.click("#menu div:has-text('Merge function')");
	check("a transform keeps the colours of the difference", /^rgb\(\d+,\d+,255\)$/.test(await p3.evaluate(() =>
		ember.frame(ember.find("a")).color)) && (await p3.evaluate(() => ember.frame(ember.find("a")).samples)) == 35);
	await p3.click("#before");
	await sameTree(p3, T.merge(la, "b"), "before, merged: the first counts transformed");
	await close(p3);
}

(async () => {
	browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync"],
	});
	for (const t of [test_switcher, test_left_heavy, test_calltree, test_transforms, test_transforms_many, test_hostile, test_diff]) {
		try {
			await t();
		} catch (e) {
			check(`${t.name} ran`, false, process.env.VERBOSE ? e.message : e.message.split("\n")[0]);
		}
	}
	check("no JavaScript errors, no network access", errors.length == 0, errors.slice(0, 5));
	await browser.close();
	s.finish();
})().catch((e) => {
	console.log(`FAIL browser views: ${e.message}`);
	s.fail++;
	s.finish();
});
