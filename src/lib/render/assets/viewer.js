// ember's flame-graph viewer: draws the frame table that html.c writes
// (the data blocks script.ember-frames before this script; names and
// colours in EMBER) on a <canvas>.
//
// A tree is a set of typed arrays indexed by frame, in pre-order (a
// frame's subtree is the index range [i, end[i])): depth, name (an index
// into names), start and width (in the table's units), self, parent.
// The base tree comes from the page; focus/exclude filters and the
// sandwich view derive new trees from it.  Drawing walks the zoomed
// frame's subtree and skips every subtree narrower than half a pixel, so
// a paint costs what is visible, not what is in the profile.
//
// Hooks for tests (stable): the view switcher's buttons #flame, #icicle,
// #calltree and #table, named "Flame Graph", "Icicle", "Call Tree" and
// "Functions", and #heavy "Left Heavy" (aria-pressed says which are on);
// the functions table is table#functions, one <tr> a function, the name
// first, shares as "N%"; the call tree is table#tree (role=treegrid), one
// <tr> a shown node (aria-level, aria-expanded), the name first; hover
// text is in #details and #tip (role=tooltip), cleared over empty space;
// filters and transforms are the .chip elements of #filters; a
// differential page has #before, #after and #difference.  window.ember
// (at the end) gives the state and where each frame is drawn; its ready
// is false while a big graph's first paint, drawn from its wide frames
// (html.c's first table), waits for the whole table, true once every
// frame is there (or the page says why it cannot show the profile).
(function () {
"use strict";
var E = window.EMBER;
var DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
var SEARCHCOLOR = "rgb(230,0,230)";
var XPAD = 10, MINPX = 0.5, TABLEROWS = 1000;
var fh = E.frameheight, fontsize = E.fontsize;
var font = fontsize + "px " + JSON.stringify(E.fonttype) + ", sans-serif";
var names = [], colors = [], nnames = 0, attrs = new Map(), base = null;
var TL = null; // the timeline (timeline.js), for profiles with time
var charw = E.fontsize * E.fontwidth;
var $ = function (id) { return document.getElementById(id); };

// ---- the page ---------------------------------------------------------

// the text of the data blocks script.cls (see html.c), joined
function blocks(cls) {
	var parts = [];
	document.querySelectorAll("script." + cls).forEach(function (el) {
		parts.push(el.textContent);
	});
	return parts.join("");
}
// the tables, read before the page's elements replace their blocks
var frameData = blocks("ember-frames"), firstData = E.first ? blocks("ember-first") : "";

document.body.innerHTML =
'<header><h1 id="title"></h1><div id="subtitle"></div>' +
'<div class="bar"><span id="views" role="group" aria-label="views">' +
'<button id="flame" title="flame graph: the root at the bottom (i)">Flame Graph</button>' +
'<button id="icicle" title="icicle graph: the root at the top (i)">Icicle</button>' +
'<button id="calltree" title="an expandable call tree, top-down or inverted">Call Tree</button>' +
'<button id="stack" title="samples in time order" hidden>Stack Chart</button>' +
'<button id="table" title="functions by self and total time">Functions</button></span>' +
'<button id="heavy" aria-pressed="false" title="children by weight, heaviest left (else by name)">Left Heavy</button>' +
'<span id="diffviews" role="group" aria-label="differential" hidden>' +
'<button id="before" title="the first counts">Before</button>' +
'<button id="after" title="the second counts">After</button>' +
'<button id="difference" title="the second counts, red where a stack grew, blue where it shrank">Difference</button></span>' +
'<button id="reset" hidden>Reset Zoom</button>' +
'<button id="back" hidden>Back</button><span id="filters"></span>' +
'<span class="grow"></span>' +
'<input id="search" type="search" placeholder="Search (regexp, Ctrl-F)" spellcheck="false">' +
'<button id="ignorecase" title="ignore case">ic</button>' +
'<span id="matched"></span>' +
'<button id="theme" title="light or dark">Dark</button></div></header>' +
'<main><div id="main" class="pane"><canvas></canvas><div class="spacer"></div><div class="hl"></div></div>' +
'<div id="sandwich" hidden><div class="label" id="callers-label"></div>' +
'<div id="callers" class="pane"><canvas></canvas><div class="spacer"></div><div class="hl"></div></div>' +
'<div class="label" id="callees-label"></div>' +
'<div id="callees" class="pane"><canvas></canvas><div class="spacer"></div><div class="hl"></div></div></div>' +
'<div id="tablewrap" hidden><div class="bar"><input id="filter" type="search" placeholder="Filter functions" spellcheck="false">' +
'<button id="inverted" aria-pressed="false" title="callers under each function that has self time (bottom-up)" hidden>Inverted</button></div>' +
'<table id="functions" class="list"><thead><tr><th data-k="name">Function</th><th data-k="self">Self</th><th data-k="selfpct">Self %</th>' +
'<th data-k="total">Total</th><th data-k="totalpct">Total %</th></tr></thead>' +
'<tbody></tbody></table>' +
'<table id="tree" class="list" role="treegrid" aria-label="call tree" tabindex="0" hidden><thead><tr><th>Function</th><th>Self</th><th>Self %</th>' +
'<th>Total</th><th>Total %</th></tr></thead><tbody></tbody></table><div id="more"></div></div></main>' +
'<div id="details"></div><div id="tip" role="tooltip" hidden></div><div id="menu" hidden></div>';
$("title").textContent = E.title;
$("subtitle").textContent = E.subtitle;
var sandwichEl = $("sandwich");
sandwichEl.style.cssText = "flex:1;min-height:0;display:flex;flex-direction:column";

// ---- decoding ---------------------------------------------------------

function newTree(n, delta) {
	return {
		n: n, depth: new Uint32Array(n), name: new Uint32Array(n),
		start: new Float64Array(n), width: new Float64Array(n),
		self: new Float64Array(n), parent: new Int32Array(n),
		end: new Uint32Array(n), delta: delta ? new Float64Array(n) : null,
		off: E.mixed ? new Uint8Array(n) : null,
		maxdepth: 0
	};
}

// end, self and maxdepth from depth, parent and width.
function finish(t) {
	var n = t.n, size = new Uint32Array(n), md = 0, i;
	for (i = 0; i < n; i++) {
		t.self[i] = t.width[i];
		if (t.depth[i] > md) md = t.depth[i];
	}
	for (i = n - 1; i >= 0; i--) {
		size[i]++;
		var p = t.parent[i];
		if (p >= 0) {
			size[p] += size[i];
			t.self[p] -= t.width[i];
		}
	}
	for (i = 0; i < n; i++) {
		t.end[i] = i + size[i];
		if (t.self[i] < 0) t.self[i] = 0;
	}
	t.maxdepth = md;
	return t;
}

// A frame table of html.c (see there) being read: its varints where they
// lie (at: the next character; bad: a character out of the alphabet or
// the end), the frames in pre-order, then widths, self times and subtree
// ends summed up from the leaves, then positions from each parent's end,
// children right to left.  Each pass reads a range of frames, so that a
// big table can be read in slices after the first paint; gaps wait in
// start until the positions replace them.  No other array as long as the
// table: a page of memory touched the first time costs more than what
// the decoding does on it.
var DIGIT = new Int8Array(128).fill(-1), at = 0, bad = false;
(function () {
	for (var i = 0; i < 64; i++) DIGIT[DIGITS.charCodeAt(i)] = i;
})();
function num(s) {
	var c = s.charCodeAt(at++), dg = c < 128 ? DIGIT[c] : -1;
	return dg >= 0 && dg < 32 ? dg : more(s, dg);
}
function more(s, dg) {
	var v = 0, m = 1;
	while (dg >= 32) {
		v += (dg - 32) * m;
		m *= 32;
		var c = s.charCodeAt(at++);
		dg = c < 128 ? DIGIT[c] : -1;
	}
	if (dg < 0) {
		bad = true;
		return -1;
	}
	return v + dg * m;
}
// the table's start: how many names are seen under each parent name
function Table(s, n) {
	var sum = 0, np, i;
	this.s = s;
	this.t = newTree(n, E.differential);
	this.prev = -1;
	this.md = 0;
	this.open = new Int32Array(64);
	this.cursor = null;
	at = 0;
	bad = false;
	np = num(s);
	this.ok = np >= 0 && np <= nnames + 1;
	this.np = this.ok ? np : 0;
	this.base = new Uint32Array(this.np + 1);
	for (i = 0; i < this.np && !bad; i++) {
		sum += num(s);
		if (!(sum <= n)) this.ok = false;
		this.base[i + 1] = sum;
	}
	this.ok = this.ok && !bad;
	this.fill = this.base.slice(0, this.np);
	this.pool = new Uint32Array(this.ok ? sum : 0);
	this.at = at;
}
// frames lo to hi: depth, parent, name, the rest in width and self, the
// gap in start.  The names seen under each parent name go in one pool,
// each parent's share sized by the counts at the table's start.
Table.prototype.frames = function (lo, hi) {
	var t = this.t, s = this.s, np = this.np, prev = this.prev, md = this.md;
	var depth = t.depth, name = t.name, width = t.width, parent = t.parent;
	var self = t.self, end = t.end, gap = t.start, off = t.off, delta = t.delta;
	var open = this.open, base = this.base, fill = this.fill, pool = this.pool;
	var i, d, nm;
	if (!this.ok) return false;
	at = this.at;
	bad = false;
	for (i = lo; i < hi; i++) {
		var h = num(s);
		if (!(h >= 0 && h < 0x40000000)) break;
		var hg = h & 1, hr = h & 2;
		h >>= 2;
		if (off) {
			off[i] = h & 1;
			h >>= 1;
		}
		d = prev + 1 - h;
		if (d < 0 || (d == 0) != (i == 0)) break;
		if (d >= open.length) {
			open = new Int32Array(2 * d);
			open.set(this.open);
			this.open = open;
		}
		var pk = d ? name[open[d - 1]] + 1 : 0, code = num(s);
		if (pk >= np) break;
		if (code == 0) {
			nm = num(s);
			if (!(nm >= 0 && nm < nnames) || fill[pk] == base[pk + 1]) break;
			pool[fill[pk]++] = nm;
		} else {
			if (!(code > 0 && code <= fill[pk] - base[pk])) break;
			nm = pool[base[pk] + code - 1];
		}
		parent[i] = d ? open[d - 1] : -1;
		open[d] = i;
		depth[i] = d;
		name[i] = nm;
		self[i] = width[i] = hr ? num(s) : 0;
		gap[i] = hg ? num(s) : 0;
		end[i] = i + 1;
		if (delta) {
			var z = num(s);
			delta[i] = z % 2 ? -(z + 1) / 2 : z / 2;
		}
		if (bad) break;
		if (d > md) md = d;
		prev = d;
	}
	this.prev = prev;
	this.md = md;
	this.at = at;
	this.ok = i == hi && !bad && (hi < t.n || at == s.length);
	return this.ok;
};
// the children's widths, gaps and ends into their parents', from the
// last frame back: frames n-1-lo down to n-hi
Table.prototype.sums = function (lo, hi) {
	var t = this.t, n = t.n, width = t.width, parent = t.parent, gap = t.start;
	var self = t.self, end = t.end, i, p;
	for (i = n - 1 - lo; i >= n - hi && i > 0; i--) {
		p = parent[i];
		width[p] += width[i] + gap[i];
		self[p] += gap[i];
		if (end[i] > end[p]) end[p] = end[i];
	}
	return true;
};
// positions: each frame's end where its next sibling starts (or its
// parent ends) less its gap
Table.prototype.places = function (lo, hi) {
	var t = this.t, depth = t.depth, width = t.width, start = t.start;
	var cursor = this.cursor || (this.cursor = new Float64Array(this.md + 1)), i, d;
	for (i = lo; i < hi; i++) {
		d = depth[i];
		if (d == 0) {
			cursor[0] = start[i] + width[i];
		} else {
			var en = cursor[d - 1] - start[i];
			start[i] = cursor[d - 1] = en - width[i];
			cursor[d] = en;
		}
	}
	t.maxdepth = this.md;
	return true;
};
var PASSES = ["frames", "sums", "places"], SLICE = 16384;
// The tree of a table, read at once; null if damaged.
function decode(s, n) {
	var tab = new Table(s, n);
	for (var k = 0; k < PASSES.length; k++)
		if (!tab[PASSES[k]](0, n)) return null;
	return tab.t;
}
// The same in slices of about 20 ms, one a frame, each after the frame's
// paint (a task posted from its animation frame), then done(tree) (or
// done(null) if damaged)
function decodeLater(s, n, done) {
	var tab = new Table(s, n), k = 0, lo = 0, ch = new MessageChannel();
	ch.port1.onmessage = function () {
		var t0 = performance.now();
		do {
			var hi = Math.min(n, lo + SLICE);
			if (!tab[PASSES[k]](lo, hi)) return done(null);
			lo = hi;
			if (lo == n) {
				lo = 0;
				if (++k == PASSES.length) return done(tab.t);
			}
		} while (performance.now() - t0 < 20);
		next();
	};
	var next = function () {
		requestAnimationFrame(function () { ch.port2.postMessage(0); });
	};
	next();
}

// ---- derived trees ----------------------------------------------------

// The base tree with only the stacks that pass every filter: through each
// focus name, through no exclude name; merged as before.
function filtered(b, focus, exclude) {
	var n = b.n, on = new Int32Array(nnames), stack = new Int32Array(b.maxdepth + 2);
	var own = new Float64Array(n), sp = 0, i, k;
	for (i = 0; i < n; i++) {
		var d = b.depth[i];
		while (sp > d) on[b.name[stack[--sp]]]--;
		stack[sp++] = i;
		on[b.name[i]]++;
		var ok = true;
		for (k = 0; k < focus.length; k++) if (!on[focus[k]]) ok = false;
		for (k = 0; k < exclude.length; k++) if (on[exclude[k]]) ok = false;
		if (ok) own[i] = b.self[i];
	}
	return kept(b, own);
}

// The stacks of b through any function marked in mark (by name id).
function through(b, mark) {
	var n = b.n, own = new Float64Array(n), on = new Int32Array(n), i;
	for (i = 1; i < n; i++) {
		on[i] = on[b.parent[i]] + (mark[b.name[i]] ? 1 : 0);
		if (on[i]) own[i] = b.self[i];
	}
	return kept(b, own);
}

// b with each frame's own time replaced by own[i], frames left with
// nothing dropped, the rest laid out where they were.
function kept(b, own) {
	var n = b.n, inc = new Float64Array(n), i;
	for (i = 0; i < n; i++) inc[i] = own[i];
	for (i = n - 1; i > 0; i--) inc[b.parent[i]] += inc[i];
	var map = new Int32Array(n), m = 0;
	for (i = 0; i < n; i++) if (inc[i] > 0 || i == 0) map[i] = m++;
	var t = newTree(m, b.delta), cursor = new Float64Array(b.maxdepth + 2);
	t.named = b.named;
	for (i = 0; i < n; i++) {
		if (!(inc[i] > 0 || i == 0)) continue;
		var j = map[i], dd = b.depth[i];
		t.depth[j] = dd;
		t.name[j] = b.name[i];
		t.width[j] = inc[i];
		if (dd == 0) {
			t.parent[j] = -1;
			t.start[j] = 0;
		} else {
			t.parent[j] = map[b.parent[i]];
			t.start[j] = cursor[dd - 1] - inc[i];
			cursor[dd - 1] = t.start[j];
		}
		cursor[dd] = t.start[j] + inc[i];
		if (t.delta && own[i] > 0) t.delta[j] = b.delta[i];
		if (t.off && b.off) t.off[j] = b.off[i];
	}
	return finish(t);
}

// A tree merged from paths: child() finds or adds a node (an open-addressing
// table of (parent, name) in typed arrays: a node is made after its
// parent, so its index is larger), self[] weighs it.  withDelta() (and
// withOff()) make it also sum the self deltas (and keep "off-CPU only"
// where every frame merged into a node was).  size: the nodes expected
// (a transform's: its tree's), so that neither the arrays nor the table
// grow on the way.
function Builder(rootName, size) {
	var cap = size ? size + 1 : 1024, tab = 16;
	while (tab < 2 * cap) tab *= 2;
	this.n = 1;
	this.cap = cap;
	this.parent = new Int32Array(this.cap);
	this.parent[0] = -1;
	this.name = new Uint32Array(this.cap);
	this.name[0] = rootName;
	this.self = new Float64Array(this.cap);
	this.delta = null;
	this.off = null;
	this.table = new Int32Array(tab); // node + 1, 0 for none
}
Builder.prototype.withDelta = function () { this.delta = new Float64Array(this.cap); };
Builder.prototype.withOff = function () { this.off = new Uint8Array(this.cap); };
Builder.prototype.grow = function () {
	var cap = this.cap * 2, self = this;
	["parent", "name", "self", "delta", "off"].forEach(function (k) {
		if (!self[k]) return;
		var a = new self[k].constructor(cap);
		a.set(self[k]);
		self[k] = a;
	});
	this.cap = cap;
};
function slot(p, nm, mask) {
	return (Math.imul(p, 0x9e3779b1) ^ Math.imul(nm + 1, 0x85ebca77)) & mask;
}
// a child of the root not in the table (never looked up: a subtree of
// its own, as transform's roots are)
Builder.prototype.top = function (nm) {
	if (this.n == this.cap) this.grow();
	var c = this.n++;
	this.parent[c] = 0;
	this.name[c] = nm;
	return c;
};
Builder.prototype.child = function (p, nm) {
	var tab = this.table, mask = tab.length - 1, h = slot(p, nm, mask), c;
	for (;;) {
		c = tab[h] - 1;
		if (c < 0) break;
		if (this.parent[c] == p && this.name[c] == nm) return c;
		h = (h + 1) & mask;
	}
	if (this.n == this.cap) this.grow();
	c = this.n++;
	tab[h] = c + 1;
	this.parent[c] = p;
	this.name[c] = nm;
	if (this.off) this.off[c] = 1;
	if (this.n * 2 > tab.length) {
		var big = new Int32Array(tab.length * 4), m2 = big.length - 1;
		for (var i = 1; i < this.n; i++) {
			var g = slot(this.parent[i], this.name[i], m2);
			while (big[g]) g = (g + 1) & m2;
			big[g] = i + 1;
		}
		this.table = big;
	}
	return c;
};
// Lays the nodes out in pre-order, children by name, own time first (or,
// with selfLast, as the page's own tree: own time after the children);
// the root is the function unless all says it is "all"; keepTop keeps the
// root's children in the order they were made.
Builder.prototype.tree = function (all, selfLast, keepTop) {
	var n = this.n, inc = new Float64Array(n), par = this.parent, nm = this.name, i;
	for (i = 0; i < n; i++) inc[i] = this.self[i];
	for (i = n - 1; i > 0; i--) inc[par[i]] += inc[i];
	// the children of v are kids[first[v] .. first[v + 1]), by name
	var first = new Int32Array(n + 1), kids = new Int32Array(Math.max(n - 1, 1)), at;
	for (i = 1; i < n; i++) first[par[i] + 1]++;
	for (i = 0; i < n; i++) first[i + 1] += first[i];
	at = first.slice(0, n);
	for (i = 1; i < n; i++) kids[at[par[i]]++] = i;
	// (children made in the order of a tree laid out by name are in order
	// already, but where merged frames' children joined them)
	var rank = nameRank(), byName = function (a, b) { return rank[nm[a]] - rank[nm[b]]; };
	// (a few children sorted in place: a typed array's sort with a
	// function costs more than that for each of thousands of calls)
	for (i = keepTop ? 1 : 0; i < n; i++) {
		var lo = first[i], hi = first[i + 1], q;
		for (q = lo + 1; q < hi && rank[nm[kids[q - 1]]] < rank[nm[kids[q]]]; q++);
		if (q == hi) continue;
		if (hi - lo > 24) {
			kids.subarray(lo, hi).sort(byName);
			continue;
		}
		for (; q < hi; q++) {
			var v = kids[q], rv = rank[nm[v]], z = q;
			for (; z > lo && rank[nm[kids[z - 1]]] > rv; z--) kids[z] = kids[z - 1];
			kids[z] = v;
		}
	}
	var t = newTree(n, !!this.delta), todo = new Int32Array(n), sp = 0, depth = new Uint32Array(n);
	t.off = this.off ? new Uint8Array(n) : null;
	t.named = !all; // the root is the function, not "all"
	var start = new Float64Array(n), newIdx = new Int32Array(n), k = 0;
	todo[sp++] = 0;
	while (sp) {
		var v = todo[--sp], j = k++;
		newIdx[v] = j;
		t.depth[j] = depth[v];
		t.name[j] = nm[v];
		t.width[j] = inc[v];
		t.start[j] = start[v];
		t.parent[j] = v ? newIdx[par[v]] : -1;
		if (this.delta) t.delta[j] = this.delta[v];
		if (this.off) t.off[j] = v ? this.off[v] : 0;
		var x = start[v] + (selfLast ? 0 : this.self[v]);
		for (i = first[v]; i < first[v + 1]; i++) {
			start[kids[i]] = x;
			depth[kids[i]] = depth[v] + 1;
			x += inc[kids[i]];
		}
		for (i = first[v + 1] - 1; i >= first[v]; i--) todo[sp++] = kids[i];
	}
	return finish(t);
};

// t laid out again: each frame's children from its left edge, by name or
// (heavy) by weight, heaviest first, ties by name; own time on the right.
// The frames keep their indices (only start changes).
function relayout(t, heavy) {
	var n = t.n, start = new Float64Array(n), rank = nameRank(), kids = [], i, c, k;
	var w = t.width, nm = t.name, end = t.end;
	var cmp = heavy ? function (a, b) { return w[b] - w[a] || rank[nm[a]] - rank[nm[b]]; } :
		function (a, b) { return rank[nm[a]] - rank[nm[b]]; };
	start[0] = t.start[0];
	for (i = 0; i < n; i++) {
		kids.length = 0;
		for (c = i + 1; c < end[i]; c = end[c]) kids.push(c);
		if (kids.length > 1) kids.sort(cmp);
		var x = start[i];
		for (k = 0; k < kids.length; k++) {
			start[kids[k]] = x;
			x += w[kids[k]];
		}
	}
	var r = Object.assign({}, t);
	r.start = start;
	return r;
}
function leftHeavy(t) {
	if (!t.heavy) t.heavy = relayout(t, true);
	return t.heavy;
}

// A differential tree's first counts: each frame's own time less its
// delta (the second counts less the first), laid out by name.
function beforeOf(b) {
	var n = b.n, t = newTree(n, null), i;
	t.named = b.named;
	for (i = 0; i < n; i++) {
		t.depth[i] = b.depth[i];
		t.name[i] = b.name[i];
		t.parent[i] = b.parent[i];
		t.width[i] = Math.max(b.self[i] - b.delta[i], 0);
		if (t.off) t.off[i] = b.off[i];
	}
	for (i = n - 1; i > 0; i--) t.width[t.parent[i]] += t.width[i];
	finish(t);
	return relayout(t, false);
}

// ---- transforms -------------------------------------------------------
//
// Each is a function from a tree to a new tree (any tree: the page's, a
// differential one's before or after, or one a time range selection
// chose), applied in order after focus/exclude:
//
//   m  merge function: its frames removed, their time to the caller
//   r  collapse recursion: a frame of the function inside another frame of
//      it (directly or through other functions) becomes that outer frame
//   l  collapse a module: consecutive frames of one module become one
//      frame named by the module (see moduleOf)
//   d  drop the samples whose stack has the function
//   f  focus on a function: its outermost frames, all calls merged under
//      the root, what they call below them
//   s  focus on a subtree: the frame at a path of names from the root
//
// A transform is {op, nm} (s: {op, path}); the URL keeps them as
// tx=m12.r5.s1-4-9 (name ids).

// The module of a function's name, or null.  The first rule that fits:
//   py::qualname:/path/file.py     the file (CPython's perf map names)
//   [libc.so.6]                    what is in the brackets (perf's name
//                                  for a frame with no symbol)
//   libc.so.6`malloc               before the backquote (DTrace)
//   malloc (/usr/lib/libc.so.6)    the file's base name
//   java/util/HashMap.get, Ljava/util/HashMap;::get, java.util.HashMap.get
//                                  the Java package (java.util): the
//                                  lowercase parts before the Class
//   std::vec::Vec::push, <alloc::vec::Vec<T> as Drop>::drop
//                                  the first part, a Rust crate or C++
//                                  namespace (std, alloc)
function moduleOf(s) {
	var m, head = s.split("(")[0];
	if ((m = /^py::[^:]*:(.+)$/.exec(s))) return m[1];
	if ((m = /^\[([^\]]+)\]$/.exec(s))) return m[1];
	if ((m = /^([^`\s]+)`/.exec(s))) return m[1];
	if ((m = /\s\((?:[^()]*\/)?([^()\/]+)\)$/.exec(s)) && /\.so\b|\.dll$|\.dylib$/.test(m[1])) return m[1];
	if ((m = /^L?([a-z_$][\w$]*(?:\/[a-z_$][\w$]*)*)\/[A-Z_$][\w$]*[;.:$]/.exec(head)))
		return m[1].replace(/\//g, ".");
	if ((m = /^([a-z_$][\w$]*(?:\.[a-z_$][\w$]*)*)\.[A-Z][\w$]*\.[\w$<>]+\s*$/.exec(head))) return m[1];
	if ((m = /^<?([A-Za-z_]\w*)::/.exec(s))) return m[1];
	return null;
}
var modules = [];
function moduleOfName(nm) {
	if (modules[nm] === undefined) modules[nm] = moduleOf(names[nm]);
	return modules[nm];
}

// The id of name s, added (with the colour of name like) if new.
var nameIds = null;
function nameId(s, like) {
	if (!nameIds) {
		nameIds = new Map();
		for (var k = 0; k < nnames; k++) nameIds.set(names[k], k);
	}
	var id = nameIds.get(s);
	if (id !== undefined) return id;
	id = nnames++;
	names.push(s);
	nameIds.set(s, id);
	colors.push(colors[like]);
	if (offColors.length) offColors.push(offColors[like]);
	rankCache = null;
	return id;
}

// A transform leaves most of a tree as it is: merge, collapse recursion
// and collapse module change the subtrees of a few frames (their
// "roots"), whose widths they keep, so those are built again and the rest
// copied, positions and all; drop takes out whole subtrees and moves
// what was right of them left; subtree only copies one subtree.  Only
// focus on a function, and a root at the top, build the whole tree.
function transform(t, x) {
	if (x.op == "d") return dropped(t, x.nm);
	if (x.op == "s") return subtreeOf(t, x.path);
	var roots = x.op == "f" ? [0] : txRoots(t, x), size = 0;
	if (!roots.length) return t;
	// (where the roots hold most of the tree, once is cheaper than twice)
	for (var k = 0; k < roots.length; k++) size += t.end[roots[k]] - roots[k];
	if (roots[0] == 0 || size > t.n / 2) return rebuilt(t, x, [0]);
	return spliced(t, roots, rebuilt(t, x, roots));
}

// The outermost frames whose subtrees op x changes: merge, the callers of
// the function; collapse module, the callers of the module's frames;
// collapse recursion, a frame of the function with another inside it.
function txRoots(t, x) {
	var n = t.n, roots = [], f = x.nm, i, mod = x.op == "l" ? moduleOfName(f) : null;
	var ismod = x.op == "l" ? inModule(mod) : null;
	if (x.op == "r") {
		for (i = 1; i < n; i++) {
			if (t.name[i] != f) continue;
			for (var j = i + 1; j < t.end[i] && t.name[j] != f; j++);
			if (j < t.end[i]) roots.push(i);
			i = t.end[i] - 1; // (no other outermost frame inside)
		}
		return roots;
	}
	for (i = 1; i < n; i++) {
		if (ismod ? !ismod[t.name[i]] : t.name[i] != f) continue;
		var p = t.parent[i];
		while (roots.length && roots[roots.length - 1] > p) roots.pop(); // inside p
		if (!roots.length || t.end[roots[roots.length - 1]] <= p) roots.push(p);
		if (p == 0) return [0];
		i = t.end[p] - 1;
	}
	return roots;
}

// 1 for the names of module mod's functions
function inModule(mod) {
	var a = new Uint8Array(nnames);
	for (var i = 0; i < nnames; i++) a[i] = moduleOfName(i) === mod ? 1 : 0;
	return a;
}

// The whole tree after op x (roots [0]), or the subtrees of roots after
// it, each a child of the root of one tree, in order, laid out one after
// the other.
function rebuilt(t, x, roots) {
	var n = t.n, whole = roots[0] == 0, size = 0, k, i;
	if (x.op == "f") // at most the frames of its outermost frames
		outermost(t, x.nm).forEach(function (i) { size += t.end[i] - i; });
	else
		for (k = 0; k < roots.length; k++) size += t.end[roots[k]] - roots[k];
	var b = new Builder(t.name[0], size + 1), map = new Int32Array(n);
	var DROP = -1, SKIP = -2; // SKIP: not in the result, but its descendants may be
	var f = x.nm, aux = null, ismod = null, modId = -1;
	if (t.delta) b.withDelta();
	if (t.off) b.withOff();
	if (x.op == "r") aux = new Int32Array(n).fill(-1);
	if (x.op == "l") {
		ismod = inModule(moduleOfName(f));
		modId = nameId(moduleOfName(f), f);
	}
	for (k = 0; k < roots.length; k++) {
		var r = roots[k], top = whole ? 0 : b.top(t.name[r]);
		if (b.off && !whole) b.off[top] = t.off[r];
		map[r] = x.op == "f" ? SKIP : top;
		if (aux && !whole && t.name[r] == f) aux[r] = top;
		for (i = r + 1; i < t.end[r]; i++) {
			var p = t.parent[i], m = map[p], nm = t.name[i], c;
			if (m == DROP) {
				map[i] = DROP;
				continue;
			}
			switch (x.op) {
			case "m":
				c = nm == f ? m : b.child(m, nm);
				break;
			case "r":
				c = nm == f && aux[p] >= 0 ? aux[p] : b.child(m, nm);
				aux[i] = aux[p] >= 0 ? aux[p] : nm == f ? c : -1;
				break;
			case "l":
				if (ismod[nm]) c = m > 0 && m != top && b.name[m] == modId ? m : b.child(m, modId);
				else c = b.child(m, nm);
				break;
			default: // "f"
				c = m >= 0 ? b.child(m, nm) : nm == f ? b.child(0, nm) : SKIP;
			}
			map[i] = c;
			if (c >= 0) {
				b.self[c] += t.self[i];
				if (b.delta) b.delta[c] += t.delta[i];
				if (b.off && !t.off[i]) b.off[c] = 0;
			}
		}
		if (map[r] >= 0) {
			b.self[map[r]] += t.self[r];
			if (b.delta) b.delta[map[r]] += t.delta[r];
		}
	}
	return b.tree(whole ? !t.named : true, true, !whole);
}

// t with the subtree of each of roots (outermost frames, in order)
// replaced by the subtrees of the root of s, of the same widths.
function spliced(t, roots, s) {
	var n = t.n, m = n - 1 + s.n, k, i, j = 0, pos = 1;
	for (k = 0; k < roots.length; k++) m -= t.end[roots[k]] - roots[k];
	var o = newTree(m, t.delta), map = new Int32Array(n);
	o.named = t.named;
	for (i = 0, k = 0; i < n;) {
		if (k < roots.length && i == roots[k]) {
			var base = j - pos, d0 = t.depth[i] - 1, x0 = t.start[i] - s.start[pos], e = s.end[pos];
			for (var q = pos; q < e; q++, j++) {
				o.depth[j] = d0 + s.depth[q];
				o.name[j] = s.name[q];
				o.width[j] = s.width[q];
				o.start[j] = x0 + s.start[q];
				o.parent[j] = q == pos ? map[t.parent[i]] : base + s.parent[q];
				if (o.delta) o.delta[j] = s.delta[q];
				if (o.off) o.off[j] = s.off[q];
			}
			pos = e;
			k++;
			i = t.end[i];
			continue;
		}
		// the frames up to the next root, as they are
		var z = k < roots.length ? roots[k] : n, i0 = i, j0 = j;
		["depth", "name", "width", "start", "delta", "off"].forEach(function (a) {
			if (o[a]) o[a].set(t[a].subarray(i0, z), j0);
		});
		for (; i < z; i++, j++) {
			map[i] = j;
			o.parent[j] = i ? map[t.parent[i]] : -1;
		}
	}
	return finish(o);
}

// Drop: the subtrees of f's outermost frames taken out, and each frame
// moved left by the width taken out on its left (what is left of a frame
// all of whose time was dropped stays, of width 0, as the frames of the
// other transforms do).  dw[i]: the width dropped inside frame i; a frame's new
// start is its parent's plus where it lay in it, less what was dropped
// in its siblings on its left.
function dropped(t, f) {
	var n = t.n, dw = new Float64Array(n), has = new Uint8Array(n), any = false, i, k;
	for (i = 1; i < n;) {
		if (t.name[i] == f) {
			dw[i] = t.width[i];
			has[i] = 1;
			any = true;
			i = t.end[i];
		} else {
			i++;
		}
	}
	if (!any) return t;
	for (i = n - 1; i > 0; i--)
		if (has[i]) {
			dw[t.parent[i]] += dw[i];
			has[t.parent[i]] = 1;
		}
	var ns = new Float64Array(n), nw = new Float64Array(n), m = 0, kids = [], c;
	var byStart = function (p, q) { return t.start[p] - t.start[q]; };
	ns[0] = t.start[0];
	for (i = 0; i < n;) {
		nw[i] = t.width[i] - dw[i];
		if (i && t.name[i] == f) {
			i = t.end[i];
			continue;
		}
		m++;
		if (has[i]) { // (else its frames keep their places in it)
			kids.length = 0;
			for (c = i + 1; c < t.end[i]; c = t.end[c]) kids.push(c);
			var up = true, down = true;
			for (k = 1; k < kids.length; k++) {
				if (t.start[kids[k]] < t.start[kids[k - 1]]) up = false;
				else if (t.start[kids[k]] > t.start[kids[k - 1]]) down = false;
			}
			if (!up && down) kids.reverse();
			else if (!up) kids.sort(byStart);
			for (k = 0, c = 0; k < kids.length; k++) {
				ns[kids[k]] = ns[i] + (t.start[kids[k]] - t.start[i]) - c;
				c += dw[kids[k]];
			}
		} else {
			for (c = i + 1; c < t.end[i]; c++) ns[c] = ns[i] + (t.start[c] - t.start[i]);
			for (c = i + 1; c < t.end[i]; c++) nw[c] = t.width[c];
			m += t.end[i] - i - 1;
			i = t.end[i];
			continue;
		}
		i++;
	}
	var o = newTree(m, t.delta), map = new Int32Array(n), j = 0;
	o.named = t.named;
	for (i = 0; i < n;) {
		if (i && t.name[i] == f) {
			i = t.end[i];
			continue;
		}
		map[i] = j;
		o.depth[j] = t.depth[i];
		o.name[j] = t.name[i];
		o.width[j] = nw[i];
		o.start[j] = ns[i];
		o.parent[j] = i ? map[t.parent[i]] : -1;
		if (o.delta) o.delta[j] = t.delta[i];
		if (o.off) o.off[j] = t.off[i];
		j++;
		i++;
	}
	return finish(o);
}

// Subtree only: the frame at path (names from the root) and what it
// calls, under the root; nothing where no frame is there.
function subtreeOf(t, path) {
	var v = 0, k, c;
	for (k = 0; k < path.length && v >= 0; k++) {
		for (c = v + 1; c < t.end[v] && t.name[c] != path[k]; c = t.end[c]);
		v = c < t.end[v] ? c : -1;
	}
	var size = v > 0 ? t.end[v] - v : 0, o = newTree(size + 1, t.delta), i, j;
	o.named = t.named;
	o.name[0] = t.name[0];
	o.parent[0] = -1;
	if (v > 0) {
		var d0 = t.depth[v] - 1, x0 = t.start[v];
		o.width[0] = t.width[v];
		for (i = v, j = 1; i < t.end[v]; i++, j++) {
			o.depth[j] = t.depth[i] - d0;
			o.name[j] = t.name[i];
			o.width[j] = t.width[i];
			o.start[j] = t.start[i] - x0;
			o.parent[j] = i == v ? 0 : t.parent[i] - v + 1;
			if (o.delta) o.delta[j] = t.delta[i];
			if (o.off) o.off[j] = t.off[i];
		}
	}
	return finish(o);
}

var rankCache = null;
function nameRank() {
	if (rankCache) return rankCache;
	var idx = [], i;
	for (i = 0; i < nnames; i++) idx.push(i);
	idx.sort(function (a, b) { return names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0; });
	rankCache = new Uint32Array(nnames);
	for (i = 0; i < nnames; i++) rankCache[idx[i]] = i;
	return rankCache;
}

// The outermost frames of function f in tree t (not inside another f).
function outermost(t, f) {
	var out = [];
	for (var i = 0; i < t.n;) {
		if (t.name[i] == f && t.depth[i] > 0) {
			out.push(i);
			i = t.end[i];
		} else {
			i++;
		}
	}
	return out;
}

// Sandwich: f's callers (a tree rooted at f, callers as children) and its
// callees (f's subtrees merged), over every place f runs.
function sandwich(t, f) {
	var tops = outermost(t, f), up = new Builder(f), down = new Builder(f);
	for (var k = 0; k < tops.length; k++) {
		var i = tops[k], node = 0;
		for (var a = t.parent[i]; a > 0; a = t.parent[a]) node = up.child(node, t.name[a]);
		up.self[node] += t.width[i];
		var map = [0];
		down.self[0] += t.self[i];
		for (var j = i + 1; j < t.end[i]; j++) {
			var c = down.child(map[t.depth[j] - t.depth[i] - 1], t.name[j]);
			map[t.depth[j] - t.depth[i]] = c;
			down.self[c] += t.self[j];
		}
	}
	return [up.tree(), down.tree()];
}

// Self and total time of every function in t (total counted once when
// a function is on its own stack: recursion does not add up).
function functionStats(t) {
	var self = new Float64Array(nnames), total = new Float64Array(nnames);
	var on = new Int32Array(nnames), stack = new Int32Array(t.maxdepth + 2), sp = 0;
	for (var i = 1; i < t.n; i++) {
		var d = t.depth[i], nm = t.name[i];
		while (sp >= d) on[t.name[stack[--sp]]]--;
		stack[sp++] = i;
		if (!on[nm]) total[nm] += t.width[i];
		on[nm]++;
		self[nm] += t.self[i];
	}
	return { self: self, total: total };
}

// ---- numbers and colours ----------------------------------------------

function samples(w) { return w * E.unit * E.factor; }
function grouped(v) {
	v = Math.round(v);
	if (!isFinite(v)) return String(v);
	var s = Math.abs(v) < 1e21 ? String(v) : BigInt(v).toString();
	return s.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + "%" : "-"; }
function scaleColor(v, max) {
	var r = 255, g = 255, b = 255;
	if (v > 0) g = b = Math.floor(210 * (max - v) / max);
	else if (v < 0) r = g = Math.floor(210 * (max + v) / max);
	return "rgb(" + r + "," + g + "," + b + ")";
}
// 4 digits a colour; two a name in a wall-clock graph (off-CPU second)
var offColors = [];
function decodeColors() {
	var s = E.colors, lut = {}, per = E.mixed ? 2 : 1, i;
	for (i = 0; i < 64; i++) lut[DIGITS[i]] = i;
	var one = function (at) {
		var v = 0;
		for (var k = 3; k >= 0; k--) v = v * 64 + (lut[s[at + k]] || 0);
		return "#" + (v | 0x1000000).toString(16).slice(1);
	};
	for (i = 0; i < nnames; i++) {
		colors.push(one(4 * per * i));
		if (per == 2) offColors.push(one(4 * per * i + 4));
	}
}
function isAll(t, i) { return t.depth[i] == 0 && !t.named; }
function displayName(t, i) { return isAll(t, i) ? "all" : names[t.name[i]]; }

// ---- state and the URL ------------------------------------------------

var S = { icicle: !!E.inverted, zoom: 0, search: "", ic: false, focus: [],
	exclude: [], tx: [], sandwich: -1, mode: "graph", theme: "", sort: "self",
	heavy: false, inverted: false, diff: "difference" };
var match = null, matchedWidth = 0, tree = null, charts = [], start = null;
var SORTS = /^(self|total|name|selfpct|totalpct|before|after|delta)$/;
var MODES = /^(graph|table|calltree)$/;

function readHash() {
	var h = location.hash.replace(/^#/, ""), q = {};
	h.split("&").forEach(function (kv) {
		var i = kv.indexOf("=");
		if (i > 0) {
			try { q[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { }
		}
	});
	var ids = function (s, sep) {
		return (s || "").split(sep || ".").filter(function (x) { return /^\d+$/.test(x) && +x < nnames; }).map(Number);
	};
	if (q.view) S.icicle = q.view == "icicle";
	S.zoom = /^\d+$/.test(q.zoom || "") ? +q.zoom : 0;
	S.search = q.search || "";
	S.ic = q.ic == "1";
	S.focus = ids(q.focus);
	S.exclude = ids(q.exclude);
	S.tx = [];
	(q.tx || "").split(".").forEach(function (x) {
		var op = x.charAt(0), rest = x.slice(1);
		if (op == "s") {
			var p = ids(rest, "-");
			if (p.length && p.length == rest.split("-").length) S.tx.push({ op: op, path: p });
		} else if (/^[mrldf]$/.test(op) && ids(rest).length == 1 && ids(rest)[0] + "" == rest &&
			(op != "l" || moduleOfName(+rest) !== null)) {
			S.tx.push({ op: op, nm: +rest });
			if (op == "l") nameId(moduleOfName(+rest), +rest);
		}
	});
	var sw = ids(q.sandwich);
	S.sandwich = sw.length ? sw[0] : -1;
	S.mode = MODES.test(q.mode || "") || (q.mode == "sandwich" && S.sandwich >= 0) ||
		(q.mode == "stack" && TL) ? q.mode : "graph";
	if (TL) TL.readHash(q);
	if (q.theme == "dark" || q.theme == "light") S.theme = q.theme;
	if (SORTS.test(q.sort || "") && (E.differential || !/^(before|after|delta)$/.test(q.sort))) S.sort = q.sort;
	S.heavy = q.heavy == "1";
	S.inverted = q.inverted == "1";
	S.diff = E.differential && /^(before|after)$/.test(q.diff || "") ? q.diff : "difference";
}
function txText(x) {
	return x.op == "s" ? "s" + x.path.join("-") : x.op + x.nm;
}
function writeHash() {
	var q = ["view=" + (S.icicle ? "icicle" : "flame")];
	if (S.zoom) q.push("zoom=" + S.zoom);
	if (S.search) q.push("search=" + encodeURIComponent(S.search));
	if (S.ic) q.push("ic=1");
	if (S.focus.length) q.push("focus=" + S.focus.join("."));
	if (S.exclude.length) q.push("exclude=" + S.exclude.join("."));
	if (S.tx.length) q.push("tx=" + S.tx.map(txText).join("."));
	if (S.mode == "sandwich") q.push("sandwich=" + S.sandwich);
	if (S.mode != "graph") q.push("mode=" + S.mode);
	if (S.sort != "self") q.push("sort=" + S.sort);
	if (S.heavy) q.push("heavy=1");
	if (S.inverted) q.push("inverted=1");
	if (S.diff != "difference") q.push("diff=" + S.diff);
	if (S.theme) q.push("theme=" + S.theme);
	if (TL) q = q.concat(TL.hash());
	var h = "#" + q.join("&");
	if (h != location.hash) {
		try { history.replaceState(null, "", h); } catch (e) { }
	}
}

// ---- charts -----------------------------------------------------------

// A scrolling pane with a sticky canvas that draws one tree.
function Chart(pane, flip) {
	this.pane = pane;
	this.canvas = pane.querySelector("canvas");
	this.spacer = pane.querySelector(".spacer");
	this.hl = pane.querySelector(".hl");
	this.ctx = this.canvas.getContext("2d");
	this.flip = flip; // draws the other way up from the main chart
	this.tree = null;
	this.zoom = 0;
	this.sel = -1;
	this.drawn = { idx: new Int32Array(1024), x: new Float64Array(1024), w: new Float64Array(1024), n: 0 };
	var self = this;
	pane.addEventListener("scroll", function () { self.draw(); });
	this.canvas.addEventListener("mousemove", function (e) { self.hover(e); });
	this.canvas.addEventListener("mouseleave", function () { self.unhover(); });
	this.canvas.addEventListener("click", function (e) { self.click(e); });
	this.canvas.addEventListener("contextmenu", function (e) { self.menu(e); });
	charts.push(this);
}
Chart.prototype.icicle = function () { return S.icicle != this.flip; };
Chart.prototype.contentHeight = function () { return (this.tree.maxdepth + 1) * fh + 2; };
Chart.prototype.rowY = function (d) {
	return this.icicle() ? 1 + d * fh : this.contentHeight() - 1 - (d + 1) * fh;
};
Chart.prototype.set = function (t, zoom) {
	this.tree = t;
	this.zoom = zoom > 0 && zoom < t.n ? zoom : 0;
	this.sel = -1;
	this.layout();
	if (!this.icicle()) this.pane.scrollTop = this.pane.scrollHeight;
	else this.pane.scrollTop = 0;
	this.draw();
};
Chart.prototype.layout = function () {
	var ch = this.contentHeight(), vh = Math.min(ch, this.pane.clientHeight || ch);
	this.viewH = vh;
	// a flame graph shorter than its pane grows from the pane's bottom edge
	this.margin = !this.icicle() && ch < this.pane.clientHeight ? this.pane.clientHeight - ch : 0;
	this.canvas.style.marginTop = this.margin + "px";
	this.spacer.style.height = (ch - vh) + "px";
	this.canvas.style.height = vh + "px";
};
Chart.prototype.draw = function () {
	var t = this.tree;
	if (!t || this.pane.offsetParent === null) return;
	var dpr = window.devicePixelRatio || 1, W = this.pane.clientWidth;
	this.layout();
	var vh = this.viewH, c = this.canvas, ctx = this.ctx;
	this.canvas.style.width = W + "px";
	var bw = Math.round(W * dpr), bh = Math.round(vh * dpr);
	if (c.width != bw || c.height != bh) {
		c.width = bw;
		c.height = bh;
	}
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	ctx.clearRect(0, 0, W, vh);
	ctx.font = font;
	ctx.textBaseline = "middle";
	this.W = W;
	var top = this.pane.scrollTop, ch = this.contentHeight(), dlo, dhi;
	if (this.icicle()) {
		dlo = Math.floor((top - 1) / fh) - 1;
		dhi = Math.ceil((top + vh) / fh);
	} else {
		dlo = Math.floor((ch - 1 - top - vh) / fh) - 1;
		dhi = Math.ceil((ch - 1 - top) / fh);
	}
	this.top = top;
	var z = this.zoom, x0 = t.start[z], span = t.width[z] || 1;
	var scale = (W - 2 * XPAD) / span;
	this.x0 = x0;
	this.scale = scale;
	this.drawn.n = 0;
	for (var a = t.parent[z]; a >= 0; a = t.parent[a])
		if (t.depth[a] >= dlo && t.depth[a] <= dhi) this.frame(a, XPAD, W - 2 * XPAD);
	var depth = t.depth, width = t.width, start = t.start, end = t.end;
	for (var i = z, e = end[z]; i < e;) {
		var d = depth[i], w = width[i] * scale;
		if (w < MINPX || d > dhi) {
			i = end[i];
			continue;
		}
		if (d >= dlo) this.frame(i, XPAD + (start[i] - x0) * scale, w);
		i++;
	}
	if (this.sel >= 0) this.outline(this.sel);
};
Chart.prototype.color = function (i) {
	var t = this.tree, nm = t.name[i];
	if (match && match[nm] && !isAll(t, i)) return SEARCHCOLOR;
	if (t.delta && names[nm] != "--" && names[nm] != "-") {
		var v = E.negate ? -t.delta[i] : t.delta[i];
		return scaleColor(v * E.unit, E.maxdelta);
	}
	return t.off && t.off[i] ? offColors[nm] : colors[nm];
};
Chart.prototype.frame = function (i, x, w) {
	var ctx = this.ctx, y = this.rowY(this.tree.depth[i]) - this.top, dr = this.drawn;
	if (dr.n == dr.idx.length) {
		var grow = function (a) { var b = new a.constructor(a.length * 2); b.set(a); return b; };
		dr.idx = grow(dr.idx);
		dr.x = grow(dr.x);
		dr.w = grow(dr.w);
	}
	dr.idx[dr.n] = i;
	dr.x[dr.n] = x;
	dr.w[dr.n++] = w;
	ctx.fillStyle = this.color(i);
	ctx.fillRect(x, y, w > 2 ? w - 0.5 : w, fh - 1);
	if (w < 3 * charw + 6) return;
	var name = displayName(this.tree, i), room = w - 6;
	var chars = Math.floor(room / charw), label = name;
	if (chars < name.length) label = name.slice(0, Math.max(chars - 2, 1)) + "..";
	// the font may be wider than --fontwidth says: cut until it fits
	while (label.length > 3 && ctx.measureText(label).width > room)
		label = label.slice(0, Math.max(label.length - 4, 1)) + "..";
	ctx.fillStyle = "#000";
	ctx.fillText(label, x + 3, y + (fh - 1) / 2 + 0.5);
};
// The frame at client coordinates, or -1.
Chart.prototype.at = function (cx, cy) {
	var r = this.canvas.getBoundingClientRect(), x = cx - r.left, y = cy - r.top + this.top;
	var ch = this.contentHeight(), d = this.icicle() ? Math.floor((y - 1) / fh) : Math.floor((ch - 1 - y) / fh);
	var dr = this.drawn, t = this.tree;
	for (var k = 0; k < dr.n; k++) {
		var i = dr.idx[k];
		if (t.depth[i] == d && x >= dr.x[k] && x < dr.x[k] + Math.max(dr.w[k], 1)) return i;
	}
	return -1;
};
// Where frame i is drawn, in the pane's content coordinates.
Chart.prototype.box = function (i) {
	var dr = this.drawn;
	for (var k = 0; k < dr.n; k++)
		if (dr.idx[k] == i) return { x: dr.x[k], y: this.rowY(this.tree.depth[i]), w: dr.w[k], h: fh - 1 };
	return null;
};
Chart.prototype.outline = function (i) {
	var b = this.box(i);
	if (!b) return;
	this.ctx.strokeStyle = getComputedStyle(document.documentElement).getPropertyValue("--fg") || "#000";
	this.ctx.lineWidth = 2;
	this.ctx.strokeRect(b.x + 1, b.y - this.top + 1, Math.max(b.w - 2, 1), fh - 3);
};
Chart.prototype.text = function (i) {
	var t = this.tree, nm = t.name[i], a = attrs.get(nm);
	if (a && a.title && !isAll(t, i)) return a.title;
	var w = t.width[i], total = whole();
	var s = (!isAll(t, i) ? E.nametype + " " : "") + displayName(t, i) + " (" +
		grouped(samples(w)) + " " + E.countname + ", " + pct(w, total);
	if (this.zoom && t.end[this.zoom] > i && i >= this.zoom)
		s += "; " + pct(w, t.width[this.zoom]) + " of the zoomed frame";
	if (t.delta && !isAll(t, i)) {
		var dv = (E.negate ? -t.delta[i] : t.delta[i]);
		s += "; " + (dv > 0 ? "+" : "") + pct(dv, total);
	}
	return s + ")";
};
Chart.prototype.tip = function (i) {
	var t = this.tree, s = this.text(i);
	if (!isAll(t, i)) s += "\nself: " + grouped(samples(t.self[i])) + " " + E.countname + " (" + pct(t.self[i], whole()) + ")";
	var a = attrs.get(t.name[i]);
	if (a && a.href) s += "\nCtrl-click: " + a.href;
	return s;
};
Chart.prototype.hover = function (e) {
	var i = this.at(e.clientX, e.clientY);
	if (i < 0) return this.unhover();
	this.hovered = i;
	var b = this.box(i), hl = this.hl;
	hl.style.display = "block";
	hl.style.left = b.x + "px";
	hl.style.top = b.y + this.margin + "px";
	hl.style.width = Math.max(b.w, 1) + "px";
	hl.style.height = fh - 1 + "px";
	$("details").textContent = this.text(i);
	var tip = $("tip");
	tip.textContent = this.tip(i);
	tip.hidden = false;
	var x = e.clientX + 12, y = e.clientY + 16;
	if (x + tip.offsetWidth > innerWidth) x = Math.max(0, innerWidth - tip.offsetWidth - 4);
	if (y + tip.offsetHeight > innerHeight) y = Math.max(0, e.clientY - tip.offsetHeight - 8);
	tip.style.left = x + "px";
	tip.style.top = y + "px";
	this.canvas.style.cursor = "pointer";
};
Chart.prototype.unhover = function () {
	this.hovered = -1;
	this.hl.style.display = "none";
	$("tip").hidden = true;
	$("details").textContent = "";
};
Chart.prototype.click = function (e) {
	hideMenu();
	var i = this.at(e.clientX, e.clientY);
	if (i < 0) return;
	var a = attrs.get(this.tree.name[i]);
	if (a && a.href && (e.ctrlKey || e.metaKey)) {
		window.open(a.href, "_blank", "noopener");
		return;
	}
	this.zoomTo(i);
};
Chart.prototype.zoomTo = function (i) {
	this.zoom = i > 0 && i < this.tree.n ? i : 0;
	this.sel = i;
	if (this == mainChart) {
		S.zoom = this.zoom;
		$("reset").hidden = !this.zoom;
		writeHash();
	}
	this.draw();
	this.unhover();
	$("details").textContent = this.text(i);
};
Chart.prototype.menu = function (e) {
	var i = this.at(e.clientX, e.clientY);
	if (i <= 0) return;
	e.preventDefault();
	showMenu(e.clientX, e.clientY, this, i);
};

// ---- search -----------------------------------------------------------

function search(term) {
	S.search = term;
	var box = $("search");
	if (box.value != term) box.value = term;
	box.classList.remove("bad");
	match = null;
	if (term) {
		var re = null;
		try { re = new RegExp(term, S.ic ? "i" : ""); } catch (e) { box.classList.add("bad"); }
		if (re) {
			match = new Uint8Array(nnames);
			for (var k = 0; k < nnames; k++) if (re.test(names[k])) match[k] = 1;
		}
	}
	updateMatched();
	writeHash();
	charts.forEach(function (c) { c.draw(); });
}
// Matched: the share of the total in frames that match, nested matches
// counted once.
function updateMatched() {
	var el = $("matched");
	if (!S.search) {
		el.textContent = "";
		return;
	}
	if (!match) {
		el.textContent = "Invalid regexp";
		return;
	}
	var t = tree, sum = 0;
	for (var i = 1; i < t.n;) {
		if (match[t.name[i]]) {
			sum += t.width[i];
			i = t.end[i];
		} else {
			i++;
		}
	}
	matchedWidth = sum;
	var p = t.width[0] > 0 ? 100 * sum / t.width[0] : 0;
	el.textContent = "Matched: " + (p == 100 ? p : p.toFixed(1)) + "%";
}

// ---- views ------------------------------------------------------------

var mainChart, callersChart, calleesChart;

// The tree the filters and transforms start from: the page's, or of a
// differential profile its first counts (before), its second (after,
// drawn without the colours of the difference) or both (difference); of
// a profile with time, the samples of the selected range and threads.
var bases = {}, rangeTree = null; // (made by rebuild)
function baseTree() {
	if (rangeTree) return rangeTree;
	if (!E.differential || S.diff == "difference") return base;
	if (!bases[S.diff])
		bases[S.diff] = S.diff == "before" ? beforeOf(base) : Object.assign({}, base, { delta: null });
	return bases[S.diff];
}
function whole() { return baseTree().width[0]; }
function derive(b) {
	var t = S.focus.length || S.exclude.length ? filtered(b, S.focus, S.exclude) : b;
	for (var k = 0; k < S.tx.length; k++) t = transform(t, S.tx[k]);
	return t;
}
// What the flame graph and the icicle draw: the tree, left-heavy or not.
function drawnTree() { return S.heavy ? leftHeavy(tree) : tree; }

var TXLABEL = { m: "merge: ", r: "collapse recursion: ", l: "collapse: ", d: "drop: ",
	f: "focus function: ", s: "focus subtree: " };
function rebuild() {
	rangeTree = TL && TL.tree();
	tree = derive(baseTree());
	diffStats = null;
	var chips = $("filters");
	chips.textContent = "";
	var chip = function (label, list, k) {
		var c = document.createElement("span"), x = document.createElement("button");
		c.className = "chip";
		c.textContent = label;
		c.title = c.textContent;
		x.textContent = "\u00d7";
		x.title = "remove";
		x.addEventListener("click", function () {
			list.splice(k, 1);
			S.zoom = 0;
			rebuild();
		});
		c.appendChild(x);
		chips.appendChild(c);
	};
	S.focus.forEach(function (f, k) { chip("focus: " + names[f], S.focus, k); });
	S.exclude.forEach(function (f, k) { chip("exclude: " + names[f], S.exclude, k); });
	S.tx.forEach(function (x, k) {
		var what = x.op == "s" ? x.path.map(function (nm) { return names[nm]; }).join(" > ") :
			x.op == "l" ? moduleOfName(x.nm) : names[x.nm];
		chip(TXLABEL[x.op] + what, S.tx, k);
	});
	if (match && match.length < nnames) search(S.search); // names were added
	updateMatched();
	show();
}

function setOn(id, on) {
	var el = $(id);
	el.classList.toggle("on", on);
	el.setAttribute("aria-pressed", on ? "true" : "false");
}

function show() {
	var m = S.mode;
	$("main").hidden = m != "graph";
	sandwichEl.hidden = m != "sandwich";
	$("tablewrap").hidden = m != "table" && m != "calltree";
	$("functions").hidden = m != "table";
	$("tree").hidden = m != "calltree";
	$("inverted").hidden = m != "calltree";
	$("filter").placeholder = m == "calltree" ? "Filter (stacks through a function)" : "Filter functions";
	$("back").hidden = m != "sandwich";
	setOn("flame", m == "graph" && !S.icicle);
	setOn("icicle", m == "graph" && S.icicle);
	setOn("calltree", m == "calltree");
	setOn("table", m == "table");
	setOn("heavy", S.heavy);
	setOn("inverted", S.inverted);
	if (E.differential) {
		$("diffviews").hidden = false;
		["before", "after", "difference"].forEach(function (d) { setOn(d, S.diff == d); });
	}
	$("ignorecase").classList.toggle("on", S.ic);
	var dark = S.theme ? S.theme == "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
	document.documentElement.dataset.theme = dark ? "dark" : "light";
	$("theme").textContent = dark ? "Light" : "Dark";
	if (!dark) {
		document.documentElement.style.setProperty("--bg1", E.bg[0]);
		document.documentElement.style.setProperty("--bg2", E.bg[1]);
	} else {
		document.documentElement.style.removeProperty("--bg1");
		document.documentElement.style.removeProperty("--bg2");
	}
	if (m == "graph") {
		mainChart.set(drawnTree(), S.zoom);
		S.zoom = mainChart.zoom;
	} else if (m == "sandwich") {
		var f = S.sandwich, t2 = sandwich(tree, f);
		$("callers-label").textContent = "Callers of " + names[f];
		$("callees-label").textContent = "Callees of " + names[f];
		callersChart.set(t2[0], 0);
		calleesChart.set(t2[1], 0);
	} else if (m == "calltree") {
		fillTree();
	} else if (m == "table") {
		fillTable();
	}
	if (TL) TL.show(m);
	$("reset").hidden = !(m == "graph" && S.zoom);
	writeHash();
}

function setMode(m) {
	S.mode = m;
	hideMenu();
	show();
}

// Before and after totals of every function (differential profiles),
// through the same filters and transforms.
var diffStats = null;
function beforeAfter() {
	if (!diffStats) {
		var keep = S.diff;
		S.diff = "before";
		var b = functionStats(derive(baseTree()));
		S.diff = "after";
		var a = functionStats(derive(baseTree()));
		S.diff = keep;
		diffStats = { before: b.total, after: a.total };
	}
	return diffStats;
}

function fillTable() {
	var st = functionStats(tree), rows = [], total = whole();
	var filter = $("filter").value.toLowerCase(), k;
	if (E.differential) {
		var ba = beforeAfter();
		st.before = ba.before;
		st.after = ba.after;
		st.delta = new Float64Array(nnames);
		for (k = 0; k < nnames; k++) st.delta[k] = (st.after[k] || 0) - (st.before[k] || 0);
	}
	var any = function (k) { return st.total[k] > 0 || (st.before && (st.before[k] > 0 || st.after[k] > 0)); };
	for (k = 0; k < nnames; k++)
		if (any(k) && (!filter || names[k].toLowerCase().indexOf(filter) >= 0)) rows.push(k);
	var key = S.sort.replace("pct", "");
	rows.sort(key == "name" ? function (a, b) { return names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0; } :
		function (a, b) { return st[key][b] - st[key][a] || st.total[b] - st.total[a] || a - b; });
	document.querySelectorAll("#functions th").forEach(function (th) {
		th.classList.toggle("sorted", th.dataset.k == S.sort);
	});
	var body = document.querySelector("#functions tbody"), frag = document.createDocumentFragment();
	for (var r = 0; r < rows.length && r < TABLEROWS; r++) {
		var nm = rows[r], tr = document.createElement("tr");
		var cells = [names[nm], grouped(samples(st.self[nm])), pct(st.self[nm], total),
			grouped(samples(st.total[nm])), pct(st.total[nm], total)];
		if (st.before) {
			var dv = st.delta[nm];
			cells.push(grouped(samples(st.before[nm])), grouped(samples(st.after[nm])),
				(dv > 0 ? "+" : "") + grouped(samples(dv)));
		}
		cells.forEach(function (v) {
			var td = document.createElement("td");
			td.textContent = v;
			tr.appendChild(td);
		});
		tr.dataset.name = nm;
		tr.title = "sandwich view of this function";
		frag.appendChild(tr);
	}
	body.textContent = "";
	body.appendChild(frag);
	$("more").textContent = rows.length > TABLEROWS ? (rows.length - TABLEROWS) + " more (filter to see them)" : rows.length + " functions";
}

// ---- call tree --------------------------------------------------------
//
// Rows exist only for the nodes shown: a node's children are made when it
// is first expanded.  Top-down, a node is a frame of the tree (its
// children are the frame's).  Inverted (bottom-up), a node is a list of
// frames, each with a weight: the roots are the functions with self time
// (their frames, each weighing its self time), and a node's children
// group the parents of its frames by name, each carrying its weight up;
// a weight whose frame's parent is the root ends there.
var CT = { src: null, roots: null, rows: [], sel: -1, key: "" };

function ctKids(v) {
	if (v.kids) return v.kids;
	var t = CT.src, kids = [], c, k;
	if (!v.inv) {
		for (c = v.i + 1; c < t.end[v.i]; c = t.end[c])
			kids.push({ i: c, name: t.name[c], total: t.width[c], self: t.self[c], depth: v.depth + 1, up: v });
	} else {
		if (!v.frames) { // a root: its frames found when first opened
			v.frames = [];
			v.w = [];
			for (k = 1; k < t.n; k++)
				if (t.name[k] == v.name && t.self[k] > 0) {
					v.frames.push(k);
					v.w.push(t.self[k]);
				}
		}
		var by = new Map();
		for (k = 0; k < v.frames.length; k++) {
			var p = t.parent[v.frames[k]];
			if (p <= 0) continue;
			var g = by.get(t.name[p]);
			if (!g) by.set(t.name[p], g = { inv: true, name: t.name[p], frames: [], w: [], depth: v.depth + 1, up: v });
			g.frames.push(p);
			g.w.push(v.w[k]);
		}
		by.forEach(function (g) { kids.push(ctTotals(g)); });
	}
	kids.sort(ctOrder());
	return (v.kids = kids);
}
// heaviest first, then by name
function ctOrder() {
	var rank = nameRank();
	return function (a, b) { return b.total - a.total || rank[a.name] - rank[b.name]; };
}
// An inverted node's total; its self time is the total for a root (the
// function's own time), none for a caller.
function ctTotals(g) {
	var t = CT.src, total = 0, ends = 0;
	for (var k = 0; k < g.frames.length; k++) {
		total += g.w[k];
		if (t.parent[g.frames[k]] <= 0) ends += g.w[k];
	}
	g.total = total;
	g.self = 0;
	g.ends = ends;
	return g;
}
function ctHasKids(v) {
	return v.inv ? v.total > v.ends : CT.src.end[v.i] > v.i + 1;
}
function ctRoots() {
	var t = CT.src, i;
	if (!S.inverted) return ctKids({ i: 0, depth: -1, up: null });
	var total = new Float64Array(nnames), ends = new Float64Array(nnames), roots = [];
	for (i = 1; i < t.n; i++) {
		if (!(t.self[i] > 0)) continue;
		total[t.name[i]] += t.self[i];
		if (t.parent[i] <= 0) ends[t.name[i]] += t.self[i];
	}
	for (i = 0; i < nnames; i++)
		if (total[i] > 0)
			roots.push({ inv: true, name: i, frames: null, total: total[i], self: total[i], ends: ends[i], depth: 0, up: null });
	roots.sort(ctOrder());
	return roots;
}

function fillTree() {
	var filter = $("filter").value.toLowerCase(), key = filter + "\n" + S.inverted;
	if (CT.tree != tree || CT.key != key) {
		var src = tree;
		if (filter) {
			var mark = new Uint8Array(nnames);
			for (var k = 0; k < nnames; k++) if (names[k].toLowerCase().indexOf(filter) >= 0) mark[k] = 1;
			src = through(tree, mark);
		}
		CT.tree = tree;
		CT.key = key;
		CT.src = src;
		CT.roots = ctRoots();
		CT.sel = -1;
		if (CT.roots.length == 1 && ctHasKids(CT.roots[0])) CT.roots[0].open = true;
	}
	ctRender();
}

// The rows shown, depth first: open nodes' children (TABLEROWS at most
// each; a row says how many more).
function ctRows() {
	var rows = [];
	var add = function (list) {
		for (var k = 0; k < list.length; k++) {
			if (k == TABLEROWS) {
				rows.push({ more: list.length - k, depth: list[k].depth });
				break;
			}
			rows.push(list[k]);
			if (list[k].open) add(ctKids(list[k]));
		}
	};
	add(CT.roots);
	return rows;
}

function ctRender() {
	var rows = ctRows(), total = whole(), body = document.querySelector("#tree tbody");
	var frag = document.createDocumentFragment();
	CT.rows = rows;
	if (CT.sel >= rows.length) CT.sel = rows.length - 1;
	for (var r = 0; r < rows.length; r++) {
		var v = rows[r], tr = document.createElement("tr"), td = document.createElement("td");
		tr.setAttribute("role", "row");
		tr.setAttribute("aria-level", v.depth + 1);
		tr.dataset.row = r;
		td.style.paddingLeft = 8 + 16 * v.depth + "px";
		if (v.more) {
			td.textContent = v.more + " more";
			td.className = "more";
			tr.appendChild(td);
			frag.appendChild(tr);
			continue;
		}
		if (ctHasKids(v)) tr.setAttribute("aria-expanded", v.open ? "true" : "false");
		td.textContent = names[v.name];
		tr.appendChild(td);
		[grouped(samples(v.self)), pct(v.self, total), grouped(samples(v.total)), pct(v.total, total)].forEach(function (x) {
			var c = document.createElement("td");
			c.textContent = x;
			tr.appendChild(c);
		});
		if (r == CT.sel) {
			tr.className = "sel";
			tr.setAttribute("aria-selected", "true");
		}
		frag.appendChild(tr);
	}
	body.textContent = "";
	body.appendChild(frag);
	$("more").textContent = CT.roots.length + (S.inverted ? " functions with self time" : " roots");
	if (CT.sel >= 0 && !rows[CT.sel].more) {
		var v2 = rows[CT.sel];
		$("details").textContent = E.nametype + " " + names[v2.name] + " (" + grouped(samples(v2.total)) + " " +
			E.countname + ", " + pct(v2.total, total) + "; self " + grouped(samples(v2.self)) + ", " +
			pct(v2.self, total) + ")";
		var el = body.children[CT.sel];
		if (el && el.scrollIntoView) el.scrollIntoView({ block: "nearest" });
	}
}

function ctToggle(r) {
	var v = CT.rows[r];
	if (!v || v.more || !ctHasKids(v)) return;
	v.open = !v.open;
	ctRender();
}

// Arrows: up and down through the rows, right opens (or goes to the first
// child), left closes (or goes to the parent); Enter toggles.
function ctKey(k) {
	var rows = CT.rows, r = CT.sel, v = rows[r];
	if (!rows.length) return;
	if (r < 0) {
		CT.sel = 0;
	} else if (k == "ArrowDown") {
		CT.sel = Math.min(r + 1, rows.length - 1);
	} else if (k == "ArrowUp") {
		CT.sel = Math.max(r - 1, 0);
	} else if (k == "Home") {
		CT.sel = 0;
	} else if (k == "End") {
		CT.sel = rows.length - 1;
	} else if (k == "ArrowRight" && v && !v.more && ctHasKids(v)) {
		if (!v.open) v.open = true;
		else CT.sel = r + 1;
	} else if (k == "ArrowLeft" && v) {
		if (v.open) {
			v.open = false;
		} else if (v.up) {
			var p = rows.indexOf(v.up);
			if (p >= 0) CT.sel = p;
		}
	} else if (k == "Enter" && v && !v.more && ctHasKids(v)) {
		v.open = !v.open;
	}
	ctRender();
}

function openSandwich(nm) {
	S.sandwich = nm;
	setMode("sandwich");
}

var menuTarget = null;
function showMenu(x, y, chart, i) {
	var m = $("menu"), t = chart.tree, nm = t.name[i], label = names[nm], mod = moduleOfName(nm);
	if (label.length > 60) label = label.slice(0, 57) + "...";
	var path = [];
	for (var a = i; a > 0; a = t.parent[a]) path.unshift(t.name[a]);
	m.textContent = "";
	var items = [["Zoom", function () { chart.zoomTo(i); }],
		["Focus on " + label, function () { addFilter(S.focus, nm); }],
		["Exclude " + label, function () { addFilter(S.exclude, nm); }],
		["Sandwich view of " + label, function () { openSandwich(nm); }],
		["Merge function " + label + " into its callers", function () { addTransform({ op: "m", nm: nm }); }],
		["Collapse recursion of " + label, function () { addTransform({ op: "r", nm: nm }); }]];
	if (mod !== null)
		items.push(["Collapse module " + (mod.length > 60 ? mod.slice(0, 57) + "..." : mod),
			function () { addTransform({ op: "l", nm: nm }); }]);
	if (chart == mainChart)
		items.push(["Drop samples with " + label, function () { addTransform({ op: "d", nm: nm }); }],
			["Function only: " + label + ", all calls merged", function () { addTransform({ op: "f", nm: nm }); }],
			["Subtree only: this frame and what it calls", function () { addTransform({ op: "s", path: path }); }]);
	items.push(["Copy name", function () { if (navigator.clipboard) navigator.clipboard.writeText(names[nm]).catch(function () { }); }]);
	items.forEach(function (it) {
		var d = document.createElement("div");
		d.textContent = it[0];
		d.setAttribute("role", "menuitem");
		d.addEventListener("click", function () { hideMenu(); it[1](); });
		m.appendChild(d);
	});
	m.hidden = false;
	m.style.left = Math.min(x, innerWidth - m.offsetWidth - 4) + "px";
	m.style.top = Math.min(y, innerHeight - m.offsetHeight - 4) + "px";
	menuTarget = { chart: chart, i: i };
}
function hideMenu() {
	$("menu").hidden = true;
	menuTarget = null;
}
function addFilter(list, nm) {
	if (list.indexOf(nm) < 0) list.push(nm);
	S.zoom = 0;
	S.mode = "graph";
	rebuild();
}
function addTransform(x) {
	S.tx.push(x);
	S.zoom = 0;
	if (S.mode == "sandwich") S.mode = "graph";
	rebuild();
}

// ---- keys -------------------------------------------------------------

// Arrows move the selection: up and down as drawn, left and right to the
// next frame on the same row; Enter zooms, Backspace zooms out.
function move(chart, key) {
	var t = chart.tree, i = chart.sel >= 0 ? chart.sel : chart.zoom, j = -1;
	var towardsRoot = (key == "ArrowDown") != chart.icicle();
	if (key == "ArrowUp" || key == "ArrowDown") {
		if (towardsRoot) {
			j = t.parent[i];
		} else {
			for (var c = i + 1; c < t.end[i]; c = t.end[c])
				if (j < 0 || t.width[c] > t.width[j]) j = c;
		}
	} else {
		var b = chart.box(i), dr = chart.drawn, best = Infinity;
		if (!b) return;
		for (var k = 0; k < dr.n; k++) {
			var o = dr.idx[k];
			if (o == i || t.depth[o] != t.depth[i]) continue;
			var dx = key == "ArrowLeft" ? b.x - dr.x[k] : dr.x[k] - b.x;
			if (dx > 0 && dx < best) { best = dx; j = o; }
		}
	}
	if (j < 0) return;
	chart.sel = j;
	var y = chart.rowY(t.depth[j]);
	if (y < chart.pane.scrollTop) chart.pane.scrollTop = y;
	else if (y + fh > chart.pane.scrollTop + chart.pane.clientHeight) chart.pane.scrollTop = y + fh - chart.pane.clientHeight;
	chart.draw();
	$("details").textContent = chart.text(j);
}

document.addEventListener("keydown", function (e) {
	var k = e.key, ctrl = e.ctrlKey || e.metaKey, box = $("search");
	if (k == "F3" || (ctrl && (k == "f" || k == "F"))) {
		e.preventDefault();
		if (S.mode == "table" || S.mode == "calltree") setMode("graph");
		box.focus();
		box.select();
		return;
	}
	if (k == "Escape") {
		hideMenu();
		if (document.activeElement == box || S.search) {
			search("");
			box.blur();
		} else if (S.mode != "graph") {
			setMode("graph");
		} else if (mainChart.zoom) {
			mainChart.zoomTo(0);
		}
		return;
	}
	if (e.target && (e.target.tagName == "INPUT" || ctrl || e.altKey)) return;
	if (S.mode == "calltree" && /^(Arrow(Up|Down|Left|Right)|Enter|Home|End)$/.test(k)) {
		e.preventDefault();
		ctKey(k);
		return;
	}
	var chart = S.mode == "graph" ? mainChart : S.mode == "sandwich" ? (activeChart || calleesChart) : null;
	if (k == "/") {
		e.preventDefault();
		box.focus();
	} else if (k == "i") {
		if (S.mode == "graph") $(S.icicle ? "flame" : "icicle").click();
	} else if (!chart) {
		return;
	} else if (/^Arrow/.test(k)) {
		e.preventDefault();
		move(chart, k);
	} else if (k == "Enter" && chart.sel >= 0) {
		chart.zoomTo(chart.sel);
	} else if (k == "Backspace") {
		e.preventDefault();
		chart.zoomTo(chart.zoom ? Math.max(chart.tree.parent[chart.zoom], 0) : 0);
	} else if (chart.sel > 0 && (k == "f" || k == "x" || k == "s")) {
		var nm = chart.tree.name[chart.sel];
		if (k == "f") addFilter(S.focus, nm);
		else if (k == "x") addFilter(S.exclude, nm);
		else openSandwich(nm);
	}
});
var activeChart = null;

// ---- start ------------------------------------------------------------

function fail(msg) {
	var m = document.createElement("div");
	m.id = "message";
	m.textContent = msg;
	document.querySelector("main").replaceChildren(m);
}

if (E.error) {
	fail(E.error);
	window.ember = { ready: true, error: E.error };
	return;
}
names = E.names.split("\n");
nnames = names.length;
decodeColors();
E.attrs.forEach(function (a) { attrs.set(a[0], { title: a[1], href: a[2] }); });
function damaged() {
	fail("ember: cannot show this profile: the frame table is damaged");
	window.ember = { ready: true, error: "the frame table is damaged" };
}
// With a first table (html.c: the frames wide enough to be seen, a small
// part of a big profile), the page is drawn from it, and the whole table
// read in slices after that first paint; then the tree is swapped, the
// zoomed frame found again by its names, and ember.ready set.  A URL
// with a state names frames of the whole table: it waits for that.
var partial = E.first > 0 && !location.hash.replace(/^#/, "");
base = partial ? decode(firstData, E.first) : decode(frameData, E.frames);
if (!base) return damaged();
if (partial) {
	base.maxdepth = Math.max(base.maxdepth, E.maxdepth);
	decodeLater(frameData, E.frames, swap);
}
firstData = null;

// the names from the root to frame i of t, and back
function pathOf(t, i) {
	var p = [];
	for (; i > 0; i = t.parent[i]) p.unshift(t.name[i]);
	return p;
}
function findPath(t, p) {
	var i = 0;
	for (var k = 0; k < p.length && i >= 0; k++) {
		var c = i + 1, j = -1;
		for (; c < t.end[i]; c = t.end[c])
			if (t.name[c] == p[k]) j = c;
		i = j;
	}
	return i;
}
function swap(t) {
	if (!t) return damaged();
	var path = S.zoom ? pathOf(drawnTree(), S.zoom) : [];
	base = t;
	bases = {};
	S.zoom = 0;
	rebuild();
	var z = path.length ? findPath(drawnTree(), path) : 0;
	if (z > 0) {
		S.zoom = z;
		show();
	}
	window.ember.ready = true;
}

try {
	if (E.timeline && window.emberTimeline)
		TL = window.emberTimeline({ E: E, names: names, colors: colors, S: S, charts: charts,
			rootName: base.name[0], newTree: function (n) { return newTree(n, null); },
			finish: finish, rebuild: rebuild, setMode: setMode, font: font,
			charw: function () { return charw; }, match: function () { return match; } });
} catch (err) {
	fail("ember: cannot show this profile: " + err.message);
	window.ember = { ready: true, error: err.message };
	return;
}
var canvasProbe = document.createElement("canvas").getContext("2d");
canvasProbe.font = font;
var sample = "abcdefghijklmnopqrstuvwxyz_:0123456789";
charw = Math.max(charw, canvasProbe.measureText(sample).width / sample.length);

mainChart = new Chart($("main"), false);
callersChart = new Chart($("callers"), !S.icicle);
calleesChart = new Chart($("callees"), S.icicle);
callersChart.icicle = function () { return false; };
calleesChart.icicle = function () { return true; };
[callersChart, calleesChart].forEach(function (c) {
	c.canvas.addEventListener("mouseenter", function () { activeChart = c; });
});

if (E.differential) {
	var head = document.querySelector("#functions thead tr");
	[["before", "Before", "total time in the first counts"], ["after", "After", "total time in the second counts"],
		["delta", "Delta", "after less before"]].forEach(function (c) {
		var th = document.createElement("th");
		th.dataset.k = c[0];
		th.textContent = c[1];
		th.title = c[2];
		head.appendChild(th);
	});
}
readHash();
rebuild();
if (S.search) search(S.search);

$("reset").addEventListener("click", function () { mainChart.zoomTo(0); });
["flame", "icicle"].forEach(function (id) {
	$(id).addEventListener("click", function () {
		S.icicle = id == "icicle";
		setMode("graph");
	});
});
$("calltree").addEventListener("click", function () { setMode("calltree"); });
$("table").addEventListener("click", function () { setMode("table"); });
$("heavy").addEventListener("click", function () {
	S.heavy = !S.heavy;
	show();
});
$("inverted").addEventListener("click", function () {
	S.inverted = !S.inverted;
	show();
});
["before", "after", "difference"].forEach(function (d) {
	$(d).addEventListener("click", function () {
		if (S.diff == d) return;
		S.diff = d;
		S.zoom = 0;
		rebuild();
	});
});
$("back").addEventListener("click", function () { setMode("graph"); });
$("theme").addEventListener("click", function () {
	S.theme = document.documentElement.dataset.theme == "dark" ? "light" : "dark";
	show();
});
$("ignorecase").addEventListener("click", function () {
	S.ic = !S.ic;
	$("ignorecase").classList.toggle("on", S.ic);
	search(S.search);
});
$("search").addEventListener("input", function () { search(this.value); });
$("search").addEventListener("keydown", function (e) {
	if (e.key == "Enter") this.blur();
});
$("filter").addEventListener("input", function () {
	if (S.mode == "calltree") fillTree();
	else fillTable();
});
document.querySelector("#tree tbody").addEventListener("click", function (e) {
	var tr = e.target.closest("tr");
	if (!tr) return;
	CT.sel = +tr.dataset.row;
	ctToggle(CT.sel);
	ctRender();
});
document.querySelectorAll("#functions th").forEach(function (th) {
	th.addEventListener("click", function () {
		S.sort = th.dataset.k;
		fillTable();
		writeHash();
	});
});
document.querySelector("#functions tbody").addEventListener("click", function (e) {
	var tr = e.target.closest("tr");
	if (tr) openSandwich(+tr.dataset.name);
});
document.addEventListener("click", function (e) {
	if (!$("menu").contains(e.target)) hideMenu();
});
window.addEventListener("hashchange", function () {
	readHash();
	rebuild();
	search(S.search);
});
var redraw = function () { charts.forEach(function (c) { c.draw(); }); };
window.addEventListener("resize", redraw);
(function watchDpr() {
	var mq = matchMedia("(resolution: " + (window.devicePixelRatio || 1) + "dppx)");
	var on = function () {
		mq.removeEventListener("change", on);
		redraw();
		watchDpr();
	};
	mq.addEventListener("change", on);
})();

// for tests and benchmarks: where frames are, and the state (ready once
// the whole table is read)
window.ember = {
	ready: !partial, state: S, names: names, timeline: TL && TL.hooks,
	chart: function (which) { return which == "callers" ? callersChart : which == "callees" ? calleesChart : mainChart; },
	find: function (name, which) {
		var c = this.chart(which), t = c.tree;
		for (var i = 0; i < t.n; i++) if (displayName(t, i) == name) return i;
		return -1;
	},
	// the client rectangle of frame i as drawn, or null
	rect: function (i, which) {
		var c = this.chart(which), b = c.box(i);
		if (!b) return null;
		var r = c.canvas.getBoundingClientRect();
		return { x: r.left + b.x, y: r.top + b.y - c.top, w: b.w, h: b.h };
	},
	frame: function (i, which) {
		var c = this.chart(which), t = c.tree;
		return { name: displayName(t, i), depth: t.depth[i], samples: samples(t.width[i]),
			self: samples(t.self[i]), color: c.color(i), text: c.text(i) };
	}
};
})();
