/*
 * ember's timeline: the tracks, the time range and the stack chart of a
 * profile with times (html.c writes its samples into EMBER.timeline and
 * the data blocks script.ember-tstacks and script.ember-tsamples, after
 * the scripts; viewer.js calls emberTimeline once it
 * has decoded the frame table, and takes the base tree from tree()).
 *
 * Hooks for tests (stable):
 *   #tracks              one element per process ([data-pid]) holding one
 *                        per thread ([data-tid]) whose text names the
 *                        thread ("name (tid)") and whose canvas spans the
 *                        recording, first sample to last, the same in
 *                        every track; a horizontal drag on a track's
 *                        canvas selects that time range and thread (Ctrl
 *                        adds the thread), a click selects the thread
 *                        (Ctrl-click several); Escape or #tl-clear clears
 *   #stack               the "Stack Chart" button (its title lists the
 *                        controls); #stackchart its pane: the wheel
 *                        zooms, a drag pans, a drag with Shift held or
 *                        one that starts on the time axis (its top AXISH
 *                        pixels) draws a band (#sc-band, the span's
 *                        duration as its text) and zooms to its span on
 *                        release; double-click, Escape or #stack-reset
 *                        ("Reset Zoom", shown while zoomed) return to
 *                        the whole recording or range (Escape during the
 *                        band gives it up); hover text in #details (a
 *                        blank over empty space)
 *   URL hash             range=T0-T1 (in tunits from the first sample),
 *                        threads=TID.TID, stack=T0-T1 the stack chart's
 *                        view once the wheel or a drag has moved it
 *   window.ember.timeline
 *     threads            [{tid, pid, name, process, samples}]
 *     span               [first, last] sample times (tunits); last is
 *                        the end of the last wait less one interval
 *                        when a wait outlasts the last sample
 *     tunit              nanoseconds a time unit
 *     select(t0, t1, tids), clear(), selection()
 *     time(x)            the time under client x in the tracks
 *     axis()             the time axes' ticks as drawn: {tracks, stack:
 *                        [{t, x, label}], selection: {x, w, label}}, t in
 *                        tunits, x in pixels from the left of the axis's
 *                        canvas (.tl-axis canvas above the tracks, the
 *                        top AXISH pixels of the stack chart's), labels
 *                        "N ms" from the first sample; selection: the
 *                        range's duration as drawn over it, or null
 *     activity(tid)      a track's graph: {bin, px, max, on, off}, the
 *                        weight on CPU and waiting (off-CPU) per bin of
 *                        bin tunits (px pixels) from the first sample; a
 *                        wait is spread over the time it lasts; bars of
 *                        on, then off above it, scaled to max
 *     stack()            the stack chart's view and its drawn boxes:
 *                        {t0, t1, zoomed, band, boxes: [{name, depth, x,
 *                        y, w, tid, t, d}]}: zoomed once moved from the
 *                        whole; band the drag's {t0, t1, x, w} while a
 *                        band is drawn, else null; a box's t and d its
 *                        start and length in tunits
 *     phaseOrder(tid)    the stack chart's boxes' names at depth 1..n,
 *                        left to right (for order checks)
 *
 * The samples: per thread, times (tunits from the first sample), the node
 * of the merged stack tree and a weight.  The profile's prefix tree
 * (frames with the same name under one parent are distinct nodes when
 * their addresses differ) is merged by name into a tree whose nodes are
 * numbered in pre-order, siblings by name as flamegraph.pl orders them,
 * so a subtree is an index range and a parent comes before its children:
 * a selection's flame graph is the sum of its samples' weights per node,
 * summed up to the root in one backward pass.
 */
(function () {
"use strict";
// the data blocks, which come after the scripts (the flame graph is drawn
// while the parser reads them): read once the document is parsed
var data = null;
function readData() {
	data = ["ember-tstacks", "ember-tsamples"].map(function (cls) {
		var parts = [];
		document.querySelectorAll("script." + cls).forEach(function (el) {
			parts.push(el.textContent);
			el.remove();
		});
		return parts.join("");
	});
}
window.emberTimeline = function (V) {
var E = V.E, TL = E.timeline, names = V.names, nnames = names.length;
var DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
var SEARCHCOLOR = "rgb(230,0,230)", LABELW = 200, TRACKH = 30;
var $ = function (id) { return document.getElementById(id); };

// ---- decoding ---------------------------------------------------------

var lut = new Int8Array(128).fill(-1), i;
for (i = 0; i < 64; i++) lut[DIGITS.charCodeAt(i)] = i;
function Reader(s) {
	var p = 0, len = s.length, self = this;
	this.bad = false;
	this.num = function () {
		var v = 0, m = 1;
		for (;;) {
			var c = p < len ? s.charCodeAt(p++) : 128;
			var d = c < 128 ? lut[c] : -1;
			if (d < 0) { self.bad = true; return 0; }
			if (d < 32) return v + d * m;
			v += (d - 32) * m;
			m *= 32;
		}
	};
	this.end = function () { return p == len; };
}

// the order of siblings: flamegraph.pl sorts whole lines, so "a;" before
// "a-;" is decided at the ';'
function siblingRank() {
	var idx = [], k, key = names.map(function (s) { return s + ";"; });
	for (k = 0; k < nnames; k++) idx.push(k);
	idx.sort(function (a, b) { return key[a] < key[b] ? -1 : key[a] > key[b] ? 1 : 0; });
	var r = new Uint32Array(nnames);
	for (k = 0; k < nnames; k++) r[idx[k]] = k;
	return r;
}

// The profile's stack nodes merged by name: smap[stack] = merged node;
// merged nodes renumbered in pre-order (mparent, mname, mdepth, mend).
function decodeStacks() {
	var rd = new Reader(data[0]), ns = TL.stacks, k;
	var sp = new Int32Array(ns), sn = new Uint32Array(ns);
	soff = new Uint8Array(ns);
	for (k = 0; k < ns && !rd.bad; k++) {
		var up = rd.num(), nm = rd.num();
		sp[k] = up ? k - up : -1;
		soff[k] = nm & 1;
		sn[k] = nm >>> 1;
		if (sp[k] < -1 || sn[k] >= nnames) rd.bad = true;
	}
	if (rd.bad || !rd.end()) throw new Error("the stack table is damaged");
	// merge: node 0 is the root ("all"); (parent, name) -> node in an
	// open-addressing table
	var tmp = new Int32Array(ns), par = new Int32Array(ns + 1), nam = new Uint32Array(ns + 1);
	var size = 1 << Math.ceil(Math.log2(2 * ns + 2)), mask = size - 1, slots = new Int32Array(size);
	par[0] = -1;
	nam[0] = V.rootName;
	var m = 1;
	for (k = 0; k < ns; k++) {
		var p = sp[k] < 0 ? 0 : tmp[sp[k]], nm2 = sn[k];
		var h = (Math.imul(p, 0x9e3779b1) ^ Math.imul(nm2 + 1, 0x85ebca77)) & mask, c;
		for (;;) {
			c = slots[h] - 1;
			if (c < 0) {
				c = m++;
				slots[h] = c + 1;
				par[c] = p;
				nam[c] = nm2;
				break;
			}
			if (par[c] == p && nam[c] == nm2) break;
			h = (h + 1) & mask;
		}
		tmp[k] = c;
	}
	slots = null;
	// children lists, sorted, then pre-order numbering
	var cnt = new Uint32Array(m + 1);
	for (k = 1; k < m; k++) cnt[par[k] + 1]++;
	for (k = 0; k < m; k++) cnt[k + 1] += cnt[k];
	var first = cnt.slice(0, m), fill = cnt.slice(0, m), ch = new Uint32Array(m);
	for (k = 1; k < m; k++) ch[fill[par[k]]++] = k;
	var rank = siblingRank(), byRank = function (a, b) { return rank[nam[a]] - rank[nam[b]]; };
	for (k = 0; k < m; k++)
		if (fill[k] - first[k] > 1) ch.subarray(first[k], fill[k]).sort(byRank);
	var pre = new Int32Array(m), stack = [0], n = 0;
	M = m;
	mparent = new Int32Array(m);
	mname = new Uint32Array(m);
	mdepth = new Uint16Array(m);
	mend = new Uint32Array(m);
	var orig = new Uint32Array(m);
	while (stack.length) {
		var v = stack.pop(), j = n++;
		pre[v] = j;
		orig[j] = v;
		mname[j] = nam[v];
		mparent[j] = v ? pre[par[v]] : -1;
		mdepth[j] = v ? mdepth[mparent[j]] + 1 : 0;
		for (var q = fill[v]; q-- > first[v];) stack.push(ch[q]);
	}
	for (k = 0; k < m; k++) mend[k] = k + 1;
	for (k = m - 1; k > 0; k--) if (mend[k] > mend[mparent[k]]) mend[mparent[k]] = mend[k];
	smap = new Uint32Array(ns);
	for (k = 0; k < ns; k++) smap[k] = pre[tmp[k]];
	maxdepth = 0;
	for (k = 0; k < m; k++) if (mdepth[k] > maxdepth) maxdepth = mdepth[k];
}

function decodeSamples() {
	var rd = new Reader(data[1]), T = 0;
	inOrder.forEach(function (th) {
		var n = th.n, t = new Float64Array(n), s = new Uint32Array(n);
		var w = TL.weighted ? new Float64Array(n) : null, off = new Uint8Array(n), at = 0, pw = 0;
		for (var k = 0; k < n && !rd.bad; k++) {
			at += rd.num();
			var st = rd.num();
			if (st >= TL.stacks) { rd.bad = true; break; }
			t[k] = at;
			s[k] = smap[st];
			off[k] = soff[st];
			if (w) {
				var z = rd.num();
				w[k] = pw += z % 2 ? -(z + 1) / 2 : z / 2;
			}
		}
		if (at > T) T = at;
		th.t = t;
		th.s = s;
		th.w = w;
		th.off = off;
	});
	if (rd.bad || !rd.end()) throw new Error("the samples are damaged");
	// a sample lasts until the next, at most two intervals (the median)
	var d = [];
	threads.forEach(function (th) {
		for (var k = 1; k < th.n && d.length < 20000; k++) if (th.t[k] > th.t[k - 1]) d.push(th.t[k] - th.t[k - 1]);
	});
	d.sort(function (a, b) { return a - b; });
	interval = d.length ? d[d.length >> 1] : 1;
	// what is drawn ends at span[1] + interval: past the end of every
	// wait, which may be the last sample (a program that ends waiting,
	// or an off-CPU profile whose last wait is the longest)
	var end = waits();
	span = [0, Math.max(T, end - interval)];
}

// An off-CPU sample (--off-cpu, --wall) is a wait that begins at its time
// and lasts its weight, when the weight is a time: th.wl its length in
// tunits (0 for a CPU sample), th.maxwl the longest, so that a range
// finds the waits that began before it.  Returns where the last wait
// ends (0 without waits).
var NSPER = { ns: 1, nsec: 1, nanoseconds: 1, us: 1e3, usec: 1e3, microseconds: 1e3,
	ms: 1e6, msec: 1e6, milliseconds: 1e6, s: 1e9, sec: 1e9, seconds: 1e9 };
function waits() {
	var per = NSPER[String(E.countname || "").toLowerCase()];
	var f = per && TL.weighted ? E.unit * per / TL.tunit : 0, end = 0;
	inOrder.forEach(function (th) {
		var wl = new Float64Array(th.n), mx = 0;
		if (f > 0)
			for (var k = 0; k < th.n; k++)
				if (th.off[k] && th.w[k] > 0) {
					wl[k] = th.w[k] * f;
					if (wl[k] > mx) mx = wl[k];
					if (th.t[k] + wl[k] > end) end = th.t[k] + wl[k];
				}
		th.wl = wl;
		th.maxwl = mx;
	});
	return end;
}

// the threads as the page lists them (by pid and tid), and as the
// samples come
var inOrder = TL.threads.map(function (a) {
	return { tid: a[0], pid: a[1], name: a[2], process: a[3], n: a[4] };
});
var threads = inOrder.slice().sort(function (a, b) { return a.pid - b.pid || a.tid - b.tid; });
var soff, smap, M, mparent, mname, mdepth, mend, maxdepth, span = [0, 0], interval = 1;
var ready = false;

// the first sample at or after time x in sorted times t
function lower(t, x) {
	var lo = 0, hi = t.length;
	while (lo < hi) {
		var mid = (lo + hi) >> 1;
		if (t[mid] < x) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}
function dur(th, k) {
	var cap = th.wl[k] > 0 ? th.wl[k] : 2 * interval;
	return k + 1 < th.n ? Math.min(th.t[k + 1] - th.t[k], cap) : Math.max(th.wl[k], interval);
}

// ---- the selection ----------------------------------------------------

var sel = { t0: 0, t1: 0, tids: [] };
function hasRange() { return sel.t1 > sel.t0; }
function active() { return hasRange() || sel.tids.length > 0; }
function chosen() {
	var out = threads.filter(function (th) { return sel.tids.indexOf(th.tid) >= 0; });
	return out.length ? out : threads;
}

var own = null, inc = null, onw = null, jmap = null, cursor = null;
// The selection's trees are views of two sets of arrays, used in turn
// (the tree before the last one is no longer drawn), grown as needed: a
// new tree of fresh arrays per selection had every page of them faulted
// in as it was written, most of a selection's time.
var pools = [null, null], pooled = 0;
function pooledTree(n) {
	pooled ^= 1;
	var p = pools[pooled];
	if (!p || p.n < n) p = pools[pooled] = V.newTree(Math.min(M, Math.ceil(n * 1.5)));
	var t = V.newTree(0);
	for (var key in t)
		if (t[key] && t[key].subarray) t[key] = p[key].subarray(0, n);
	t.n = n;
	return t;
}
// The flame graph of the selected samples, or null for all of them (the
// page's own frame table).
function tree() {
	if (!ready || !active()) return null;
	if (!own) {
		own = new Float64Array(M);
		inc = new Float64Array(M);
		onw = new Float64Array(M);
		jmap = new Int32Array(M);
		cursor = new Float64Array(M);
	}
	own.fill(0);
	onw.fill(0);
	var k, r = hasRange();
	// a wait counts the part of it in the range
	chosen().forEach(function (th) {
		var lo = r ? lower(th.t, sel.t0 - th.maxwl) : 0, hi = r ? lower(th.t, sel.t1) : th.n;
		var in0 = r ? lower(th.t, sel.t0) : 0, s = th.s, w = th.w, off = th.off, t = th.t, wl = th.wl;
		for (var q = lo; q < hi; q++) {
			var v = w ? w[q] : 1;
			if (r && wl[q] > 0) {
				var a = Math.max(t[q], sel.t0), z = Math.min(t[q] + wl[q], sel.t1);
				if (!(z > a)) continue;
				v *= (z - a) / wl[q];
			} else if (q < in0) {
				continue;
			}
			own[s[q]] += v;
			if (!off[q]) onw[s[q]] += v;
		}
	});
	inc.set(own);
	for (k = M - 1; k > 0; k--) {
		inc[mparent[k]] += inc[k];
		onw[mparent[k]] += onw[k];
	}
	var n = 0;
	for (k = 0; k < M;) {
		if (k && !(inc[k] > 0)) { k = mend[k]; continue; }
		n++;
		k++;
	}
	var t = pooledTree(n), j = 0;
	for (k = 0; k < M;) {
		if (k && !(inc[k] > 0)) { k = mend[k]; continue; }
		jmap[k] = j;
		t.depth[j] = mdepth[k];
		t.name[j] = mname[k];
		t.width[j] = inc[k];
		if (k) {
			var pj = jmap[mparent[k]];
			t.parent[j] = pj;
			t.start[j] = cursor[pj];
			cursor[pj] += inc[k];
		} else {
			t.parent[j] = -1;
			t.start[j] = 0;
		}
		cursor[j] = t.start[j] + own[k]; // own time first, as the table
		if (t.off) t.off[j] = onw[k] > 0 ? 0 : 1;
		j++;
		k++;
	}
	return V.finish(t);
}

function fmtTime(v) {
	var ns = v * TL.tunit;
	if (ns >= 1e9) return (ns / 1e9).toFixed(3) + " s";
	if (ns >= 1e6) return (ns / 1e6).toFixed(2) + " ms";
	return (ns / 1e3).toFixed(1) + " \u00b5s";
}

// ---- the time axis ----------------------------------------------------

// Ticks from t0 to t1 (tunits) over W pixels, at least MINPX apart, at
// 1, 2 or 5 times a power of ten, labelled in the unit of the step (time
// from the first sample)
var MINPX = 80, AXISH = 18;
var UNITS = [[1e9, "s"], [1e6, "ms"], [1e3, "\u00b5s"], [1, "ns"]];
function ticks(t0, t1, W) {
	var tu = TL.tunit, len = (t1 - t0) * tu, out = [];
	if (!(len > 0) || !(W > 0)) return out;
	var want = len / W * MINPX, p = Math.pow(10, Math.floor(Math.log10(want))), step = p;
	for (var m = 0; m < 3 && step < want; m++) step = p * [2, 5, 10][m];
	var u = UNITS[UNITS.length - 1];
	for (var k = 0; k < UNITS.length; k++)
		if (step >= UNITS[k][0] / 10) { u = UNITS[k]; break; }
	var dec = step < u[0] ? 1 : 0;
	for (var v = Math.ceil(t0 * tu / step) * step; v <= t1 * tu + 1e-9 * len; v += step) {
		var t = v / tu;
		out.push({ t: t, x: (t - t0) / (t1 - t0) * W,
			label: (Math.abs(v) < step / 2 ? "0" : (v / u[0]).toFixed(dec)) + " " + u[1] });
	}
	return out;
}
// draws the ticks of t0..t1 on ctx from y 0 to AXISH, over a background;
// returns them
function axisDraw(ctx, W, t0, t1) {
	var tk = ticks(t0, t1, W), dark = document.documentElement.dataset.theme == "dark";
	ctx.fillStyle = getComputedStyle(document.documentElement).getPropertyValue("--panel") || "#f4f4f4";
	ctx.fillRect(0, 0, W, AXISH);
	ctx.fillStyle = dark ? "#666" : "#aaa";
	ctx.fillRect(0, AXISH - 1, W, 1);
	ctx.font = "11px system-ui, sans-serif";
	ctx.textBaseline = "middle";
	tk.forEach(function (k) {
		var x = Math.round(k.x);
		ctx.fillStyle = dark ? "#666" : "#aaa";
		ctx.fillRect(x, 0, 1, AXISH);
		ctx.fillStyle = fgColor;
		ctx.fillText(k.label, x + 3, AXISH / 2);
	});
	return tk;
}
var axes = { tracks: [], stack: [], sel: null };

function apply() {
	V.S.zoom = 0;
	trackDraw();
	label();
	V.rebuild();
}
function label() {
	var s = "";
	if (hasRange()) s = fmtTime(sel.t0) + " \u2013 " + fmtTime(sel.t1) + " (" + fmtTime(sel.t1 - sel.t0) + ")";
	if (sel.tids.length) s += (s ? ", " : "") + "threads " + sel.tids.join(", ");
	$("tl-range").textContent = s;
	$("tl-clear").hidden = !active();
	document.querySelectorAll("#tracks [data-tid]").forEach(function (el) {
		el.classList.toggle("on", sel.tids.indexOf(+el.dataset.tid) >= 0);
	});
	sview = null;
	smoved = false;
}
function select(t0, t1, tids) {
	sel.t0 = Math.min(t0, t1);
	sel.t1 = Math.max(t0, t1);
	if (ready) {
		sel.t0 = Math.max(sel.t0, span[0]);
		sel.t1 = Math.min(sel.t1, span[1] + interval);
	}
	if (!(sel.t1 > sel.t0)) sel.t0 = sel.t1 = 0;
	if (tids) sel.tids = tids.slice();
	apply();
}
function clear() {
	sel = { t0: 0, t1: 0, tids: [] };
	apply();
}

// ---- the tracks -------------------------------------------------------

var tracksEl = document.createElement("div");
tracksEl.id = "tracks";
var bar = document.createElement("div");
bar.className = "tl-bar";
bar.innerHTML = '<span class="tl-title">Threads</span><span id="tl-range"></span>' +
	'<button id="tl-clear" hidden title="the whole recording (Escape)">Clear Selection</button>';
tracksEl.appendChild(bar);
var axisRow = document.createElement("div");
axisRow.className = "tl-axis";
axisRow.innerHTML = '<div class="tl-alabel"></div><canvas></canvas>';
tracksEl.appendChild(axisRow);
var acv = axisRow.querySelector("canvas");
var rows = [], pel = null, lastPid = null;
threads.forEach(function (th) {
	if (pel === null || th.pid !== lastPid) {
		pel = document.createElement("div");
		pel.className = "tl-proc";
		pel.dataset.pid = th.pid;
		var pl = document.createElement("div");
		pl.className = "tl-plabel";
		pl.textContent = (th.process || "process") + " (" + th.pid + ")";
		pel.appendChild(pl);
		tracksEl.appendChild(pel);
		lastPid = th.pid;
	}
	var row = document.createElement("div"), lb = document.createElement("div");
	var cv = document.createElement("canvas");
	row.className = "tl-thread";
	row.dataset.tid = th.tid;
	lb.className = "tl-label";
	lb.textContent = (th.name || "thread") + " (" + th.tid + ")";
	lb.title = lb.textContent + ", " + th.n + " samples";
	cv.className = "tl-graph";
	row.appendChild(lb);
	row.appendChild(cv);
	pel.appendChild(row);
	rows.push({ th: th, el: row, cv: cv, bins: null });
});
document.querySelector("main").before(tracksEl);
var style = document.createElement("style");
style.textContent =
	"#tracks { border-bottom: 1px solid var(--line); max-height: 30vh; overflow-y: auto; user-select: none; }" +
	".tl-bar { display: flex; gap: 8px; align-items: center; padding: 2px 10px; }" +
	".tl-title { color: var(--muted); } #tl-range { font-variant-numeric: tabular-nums; }" +
	".tl-plabel { padding: 1px 10px; color: var(--muted); font-size: 12px; }" +
	".tl-thread { display: flex; height: " + TRACKH + "px; border-top: 1px solid var(--line); }" +
	".tl-thread.on .tl-label { color: var(--accent); font-weight: bold; }" +
	".tl-label { width: " + LABELW + "px; flex: none; padding: 0 10px; line-height: " + TRACKH + "px; " +
	"overflow: hidden; text-overflow: ellipsis; white-space: nowrap; cursor: pointer; }" +
	".tl-graph { flex: 1; min-width: 0; height: " + TRACKH + "px; display: block; cursor: crosshair; }" +
	".tl-axis { display: flex; position: sticky; top: 0; z-index: 1; height: " + AXISH + "px; }" +
	".tl-alabel { width: " + LABELW + "px; flex: none; background: var(--panel); }" +
	".tl-axis canvas { flex: 1; min-width: 0; height: " + AXISH + "px; display: block; }" +
	"#stackchart { background: var(--bg1); }" +
	"#sc-band { position: fixed; z-index: 1; pointer-events: none; box-sizing: border-box; " +
	"background: rgba(32,96,192,0.2); border: 1px solid rgba(32,96,192,0.9); border-width: 0 1px; }" +
	"#sc-band span { display: inline-block; margin: 1px 3px; padding: 0 4px; line-height: " + (AXISH - 2) + "px; " +
	"font-size: 11px; color: #fff; background: rgba(32,96,192,0.95); white-space: nowrap; }";
document.head.appendChild(style);

// activity: per pixel, the weight on CPU and off it (in bins of BINPX
// pixels, so that a few samples a pixel do not flicker); a wait spread
// over the bins it lasts, in proportion
var BINPX = 3;
function binAll(W) {
	var max = 0, nb = Math.ceil(W / BINPX);
	rows.forEach(function (r) {
		var th = r.th, on = new Float64Array(nb), off = new Float64Array(nb);
		var sc = W / (span[1] - span[0] + interval) / BINPX;
		for (var k = 0; k < th.n; k++) {
			var u = (th.t[k] - span[0]) * sc, x = Math.min(nb - 1, Math.floor(u)), v = th.w ? th.w[k] : 1;
			if (!th.off[k]) {
				on[x] += v;
			} else if (!(th.wl[k] > 0)) {
				off[x] += v;
			} else {
				var e = u + th.wl[k] * sc, per = v / (e - u);
				for (var b = x; b < nb && b < e; b++)
					off[b] += per * (Math.min(e, b + 1) - Math.max(u, b));
			}
		}
		for (var x2 = 0; x2 < nb; x2++) if (on[x2] + off[x2] > max) max = on[x2] + off[x2];
		r.bins = { W: W, on: on, off: off };
	});
	binMax = max || 1;
}
var binMax = 1, drag = null;
function trackTime(cv, clientX) {
	var b = cv.getBoundingClientRect(), f = (clientX - b.left) / (b.width || 1);
	f = Math.max(0, Math.min(1, f));
	return span[0] + f * (span[1] - span[0] + interval);
}
function trackDraw() {
	var dpr = window.devicePixelRatio || 1;
	if (!ready || !rows.length) return;
	var W = rows[0].cv.clientWidth || 1;
	if (!rows[0].bins || rows[0].bins.W != W) binAll(W);
	var dark = document.documentElement.dataset.theme == "dark";
	var r0 = drag && drag.moved ? Math.min(drag.t0, drag.t1) : sel.t0;
	var r1 = drag && drag.moved ? Math.max(drag.t0, drag.t1) : sel.t1;
	var sc = W / (span[1] - span[0] + interval);
	if (acv.width != Math.round(W * dpr) || acv.height != Math.round(AXISH * dpr)) {
		acv.width = Math.round(W * dpr);
		acv.height = Math.round(AXISH * dpr);
	}
	var actx = acv.getContext("2d");
	actx.setTransform(dpr, 0, 0, dpr, 0, 0);
	axes.tracks = axisDraw(actx, W, span[0], span[1] + interval);
	axes.sel = null;
	if (r1 > r0) {
		// the selection's duration over it
		var sa = (r0 - span[0]) * sc, sz = (r1 - span[0]) * sc, txt = fmtTime(r1 - r0);
		var tw = actx.measureText(txt).width + 8, tx = Math.max(0, Math.min(W - tw, (sa + sz - tw) / 2));
		actx.fillStyle = "rgba(32,96,192,0.2)";
		actx.fillRect(sa, 0, Math.max(sz - sa, 1), AXISH);
		actx.fillStyle = "rgba(32,96,192,0.95)";
		actx.fillRect(tx, 1, tw, AXISH - 2);
		actx.fillStyle = "#fff";
		actx.fillText(txt, tx + 4, AXISH / 2);
		axes.sel = { x: sa, w: sz - sa, label: txt };
	}
	rows.forEach(function (r) {
		var cv = r.cv, ctx = cv.getContext("2d"), H = TRACKH;
		if (cv.width != Math.round(W * dpr) || cv.height != Math.round(H * dpr)) {
			cv.width = Math.round(W * dpr);
			cv.height = Math.round(H * dpr);
		}
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, W, H);
		var b = r.bins;
		for (var x = 0; x < b.on.length; x++) {
			var hon = (H - 2) * b.on[x] / binMax, hoff = (H - 2) * b.off[x] / binMax;
			if (hon > 0) {
				ctx.fillStyle = dark ? "#e08a3c" : "#d9702a";
				ctx.fillRect(x * BINPX, H - hon, BINPX, hon);
			}
			if (hoff > 0) {
				ctx.fillStyle = dark ? "#5f7fa8" : "#8fa8c8";
				ctx.fillRect(x * BINPX, H - hon - hoff, BINPX, hoff);
			}
		}
		if (r1 > r0) {
			var a = (r0 - span[0]) * sc, z = (r1 - span[0]) * sc;
			ctx.fillStyle = dark ? "rgba(0,0,0,0.55)" : "rgba(255,255,255,0.65)";
			ctx.fillRect(0, 0, a, H);
			ctx.fillRect(z, 0, W - z, H);
			ctx.fillStyle = "rgba(32,96,192,0.9)";
			ctx.fillRect(a, 0, 1, H);
			ctx.fillRect(Math.max(z - 1, a), 0, 1, H);
		}
	});
}
rows.forEach(function (r) {
	r.cv.addEventListener("mousedown", function (e) {
		if (e.button) return;
		e.preventDefault();
		var t = trackTime(r.cv, e.clientX);
		drag = { row: r, x: e.clientX, t0: t, t1: t, moved: false, ctrl: e.ctrlKey || e.metaKey };
	});
	r.el.querySelector(".tl-label").addEventListener("click", function (e) {
		pick(r.th.tid, e.ctrlKey || e.metaKey);
		apply();
	});
});
function pick(tid, ctrl) {
	var k = sel.tids.indexOf(tid);
	if (!ctrl) sel.tids = [tid];
	else if (k >= 0) sel.tids.splice(k, 1);
	else sel.tids.push(tid);
}
document.addEventListener("mousemove", function (e) {
	if (!drag) return;
	if (Math.abs(e.clientX - drag.x) > 3) drag.moved = true;
	drag.t1 = trackTime(drag.row.cv, e.clientX);
	if (drag.moved) trackDraw();
});
document.addEventListener("mouseup", function (e) {
	if (!drag) return;
	var d = drag, tid = d.row.th.tid;
	drag = null;
	if (d.moved) {
		d.t1 = trackTime(d.row.cv, e.clientX);
		if (!d.ctrl) sel.tids = [tid];
		else if (sel.tids.indexOf(tid) < 0) sel.tids.push(tid);
		select(d.t0, d.t1);
	} else {
		pick(tid, d.ctrl);
		apply();
	}
});
// Escape: the stack chart's band or zoom first, then the selection
window.addEventListener("keydown", function (e) {
	if (e.key != "Escape" || document.activeElement == $("search")) return;
	if (!stackEscape()) {
		if (!active()) return;
		clear();
	}
	e.stopImmediatePropagation();
	e.preventDefault();
}, true);
$("tl-clear").addEventListener("click", clear);
window.addEventListener("resize", function () { trackDraw(); });

// ---- the stack chart --------------------------------------------------

var pane = document.createElement("div");
pane.id = "stackchart";
pane.className = "pane";
pane.hidden = true;
pane.innerHTML = '<canvas></canvas><div class="spacer"></div>';
document.querySelector("main").appendChild(pane);
var scv = pane.querySelector("canvas"), sctx = scv.getContext("2d"), spacer = pane.querySelector(".spacer");
var fh = E.frameheight, charw = V.charw(), BANDHEAD = fh + 4;
var sview = null, smoved = false; // [t0, t1] shown; moved by the user
var drawn = { n: 0, node: new Int32Array(4096), x: new Float64Array(4096), w: new Float64Array(4096),
	y: new Float64Array(4096), band: new Int32Array(4096), t: new Float64Array(4096), d: new Float64Array(4096) };
var bands = [];
function view() {
	if (!sview) sview = hasRange() ? [sel.t0, sel.t1] : [span[0], span[1] + interval];
	return sview;
}
function bandDepth(th) {
	var md = 0;
	for (var k = 0; k < th.n; k++) if (mdepth[th.s[k]] > md) md = mdepth[th.s[k]];
	return md;
}
function stackLayout() {
	var y = AXISH; // the time axis above the bands
	bands = chosen().map(function (th) {
		if (th.md === undefined) th.md = bandDepth(th);
		var b = { th: th, y: y, h: BANDHEAD + th.md * fh + 4 };
		y += b.h;
		return b;
	});
	return y;
}
function grow(a) { var b = new a.constructor(a.length * 2); b.set(a); return b; }
function growDrawn() {
	var dr = drawn;
	dr.node = grow(dr.node);
	dr.x = grow(dr.x);
	dr.w = grow(dr.w);
	dr.y = grow(dr.y);
	dr.band = grow(dr.band);
	dr.t = grow(dr.t);
	dr.d = grow(dr.d);
}
// colours as canvas pixels (RGBA bytes in a little-endian word)
var col32 = null;
function pixel(css) {
	var m = /^#([0-9a-f]{6})$/i.exec(css), v = m ? parseInt(m[1], 16) : 0xe600e6;
	return (0xff000000 | (v & 255) << 16 | (v & 0xff00) | (v >> 16 & 255)) >>> 0;
}
var img = null, img32 = null, rowEnd = null, wideK = new Int32Array(1024), SEARCH32 = pixel("#e600e6");
// a name cut to fit a box: the last cut of each name kept
var cutLen = null, cutText = [];
// The boxes: those a few pixels wide straight into the pixels (there are
// thousands where stacks change under every pixel), the others as
// rectangles with their names on top.  (Each loop a function of its own:
// a loop compiled on the stack in the first draw, when the code after it
// had never run, left code that bailed out at every later draw.)
function paint(W, vh, dpr) {
	var bw = scv.width, bh = scv.height, k, match = V.match();
	if (!col32) {
		col32 = new Uint32Array(nnames);
		for (k = 0; k < nnames; k++) col32[k] = pixel(V.colors[k]);
		cutLen = new Int32Array(nnames);
	}
	if (!img || img.width != bw || img.height != bh) {
		img = sctx.createImageData(bw, bh);
		img32 = new Uint32Array(img.data.buffer);
		rowEnd = new Int32Array(bh);
	} else {
		img32.fill(0);
		rowEnd.fill(0);
	}
	if (wideK.length < drawn.n) wideK = new Int32Array(drawn.node.length);
	var nw = narrowBoxes(bw, bh, dpr, match);
	copyRows(bw, bh);
	sctx.putImageData(img, 0, 0);
	wideBoxes(nw, W, match);
}
// A narrow box writes the first pixel row of its depth's row only;
// the rows under it are copies of that one (the boxes of a depth
// share their top and height, and no two depths' rows overlap).
// Returns how many boxes are wide (in wideK).
function narrowBoxes(bw, bh, dpr, match) {
	var dr = drawn, nw = 0;
	for (var k = 0; k < dr.n; k++) {
		if (dr.w[k] * dpr >= 4) {
			wideK[nw++] = k;
			continue;
		}
		var nm = mname[dr.node[k]], c = match && match[nm] ? SEARCH32 : col32[nm];
		var x0 = Math.max(0, Math.round(dr.x[k] * dpr)), x1 = Math.min(bw, Math.max(x0 + 1, Math.round((dr.x[k] + dr.w[k]) * dpr)));
		var y0 = Math.max(0, Math.round(dr.y[k] * dpr)), y1 = Math.min(bh, Math.round((dr.y[k] + fh - 1) * dpr));
		if (y1 <= y0) continue;
		if (y1 > rowEnd[y0]) rowEnd[y0] = y1;
		for (var o = y0 * bw + x0, e = y0 * bw + x1; o < e; o++) img32[o] = c;
	}
	return nw;
}
function copyRows(bw, bh) {
	for (var yy = 0; yy < bh; yy++)
		for (var y2 = yy + 1; y2 < rowEnd[yy]; y2++) img32.copyWithin(y2 * bw, yy * bw, yy * bw + bw);
}
function wideBoxes(nw, W, match) {
	var dr = drawn;
	for (var q = 0; q < nw; q++) {
		var k = wideK[q], n2 = mname[dr.node[k]], x = dr.x[k], w = dr.w[k], y = dr.y[k];
		sctx.fillStyle = match && match[n2] ? SEARCHCOLOR : V.colors[n2];
		sctx.fillRect(x, y, w - 0.5, fh - 1);
		if (w < 3 * charw + 6) continue;
		var name = names[n2], x3 = Math.max(x, 0), room = Math.min(x + w, W) - x3 - 6;
		var chars = Math.floor(room / charw), lbl = name;
		if (chars < 3) continue;
		if (chars < name.length) {
			if (cutLen[n2] != chars) {
				cutLen[n2] = chars;
				cutText[n2] = name.slice(0, Math.max(chars - 2, 1)) + "..";
			}
			lbl = cutText[n2];
		}
		sctx.fillStyle = "#000";
		sctx.fillText(lbl, x3 + 3, y + (fh - 1) / 2 + 0.5);
	}
}
function stackDraw() {
	resetShown();
	if (!ready || pane.hidden) return;
	var dpr = window.devicePixelRatio || 1, W = pane.clientWidth, H = pane.clientHeight;
	var ch = stackLayout(), vh = Math.min(ch, H || ch);
	// (styles set only when they change: each would cost a layout)
	var css = [Math.max(ch - vh, 0) + "px", W + "px", vh + "px"];
	if (css.join() != lastCss) {
		lastCss = css.join();
		spacer.style.height = css[0];
		scv.style.width = css[1];
		scv.style.height = css[2];
	}
	if (scv.width != Math.round(W * dpr) || scv.height != Math.round(vh * dpr)) {
		scv.width = Math.round(W * dpr);
		scv.height = Math.round(vh * dpr);
	}
	drawn.n = 0;
	stackH = vh;
	var v = view(), top = pane.scrollTop, sc = W / (v[1] - v[0]);
	stackScale = sc;
	stackTop = top;
	bands.forEach(function (b, bi) {
		var y0 = b.y - top;
		if (y0 > vh || y0 + b.h < 0) return;
		band(b, bi, y0 + BANDHEAD, v, sc, W);
	});
	paint(W, vh, dpr);
	sctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	sctx.font = V.font;
	sctx.textBaseline = "middle";
	sctx.fillStyle = fgColor;
	bands.forEach(function (b) {
		var y0 = b.y - top;
		if (y0 <= vh && y0 + b.h >= 0)
			sctx.fillText((b.th.name || "thread") + " (" + b.th.tid + ")", 4, y0 + BANDHEAD / 2);
	});
	axes.stack = axisDraw(sctx, W, v[0], v[1]);
}
var lastCss = "", fgColor = "#000";
var stackScale = 1, stackTop = 0, stackH = 0, open = new Int32Array(1), ox = new Float64Array(1);
// one thread's samples from v[0] to v[1]: every sample when they are few,
// else the sample under each pixel; a box spans the items in a row that
// share its node.  (One loop with the boxes written where they close, and
// no closures: a double kept in a closure's variable or passed to a call
// not inlined is a number allocated on the heap, a megabyte of them a
// draw, which the minor GCs then stopped a zoom step for.)
function band(b, bi, y0, v, sc, W) {
	var th = b.th, t = th.t, s = th.s, md = th.md + 2, dr = drawn, v0 = v[0], v1 = v[1];
	if (open.length < md) {
		open = new Int32Array(md);
		ox = new Float64Array(md);
	}
	var depth = 0, lastx = -1, k = 0, m = -1, x0 = 0, x1 = 0, node = 0, d = 0;
	var dn = dr.n, dnode = dr.node, dx = dr.x, dw = dr.w, dy = dr.y, dband = dr.band, dt = dr.t, dd = dr.d;
	var ytop = AXISH - fh, ybot = stackH;
	var lo = Math.max(lower(t, v0) - 1, 0), hi = Math.min(lower(t, v1) + 1, th.n);
	var dense = hi - lo > 2 * W, q = dense ? lo : lo - 1, c = -1, end = false;
	while (!end) {
		// the next item: node m from x0 to x1, or the end
		if (!dense) {
			if (++q >= hi) {
				end = true;
			} else {
				var a = (t[q] - v0) * sc, z = (t[q] + dur(th, q) - v0) * sc;
				if (z < 0 || a > W) continue;
				m = s[q];
				x0 = Math.max(a, -1);
				x1 = Math.min(z, W + 1);
			}
		} else if (++c >= W) {
			end = true;
		} else {
			// the last sample at or before the pixel's middle: strides
			// doubling from the last pixel's, then halving (a binary
			// search over the rest of the view read times far apart, a
			// cache miss a step)
			var tc = v0 + (c + 0.5) / sc, a2 = q, z2 = q, st = 1;
			if (t[q] <= tc) {
				for (; a2 + st < hi && t[a2 + st] <= tc; st *= 2) a2 += st;
				z2 = Math.min(a2 + st, hi);
				a2++;
			}
			while (a2 < z2) {
				var mid = (a2 + z2) >> 1;
				if (t[mid] <= tc) a2 = mid + 1;
				else z2 = mid;
			}
			q = a2 > lo ? a2 - 1 : lo;
			if (!(t[q] <= tc && tc < t[q] + dur(th, q))) continue;
			m = s[q];
			x0 = c;
			x1 = c + 1;
		}
		// the deepest open box on m's path (none after a gap)
		k = 0;
		if (!end && !(x0 > lastx + 0.01)) {
			d = mdepth[m];
			k = d;
			for (node = m; k > depth; k--) node = mparent[node];
			for (; k > 0 && open[k] != node; k--) node = mparent[node];
		}
		// the boxes deeper than k end at lastx
		for (; depth > k; depth--) {
			var bx = ox[depth], by = y0 + (depth - 1) * fh;
			if (by <= ytop || by > ybot) continue;
			if (dn == dnode.length) {
				dr.n = dn;
				growDrawn();
				dnode = dr.node, dx = dr.x, dw = dr.w, dy = dr.y, dband = dr.band, dt = dr.t, dd = dr.d;
			}
			dnode[dn] = open[depth];
			dx[dn] = bx;
			dw[dn] = lastx - bx;
			dy[dn] = by;
			dband[dn] = bi;
			dt[dn] = v0 + bx / sc;
			dd[dn++] = (lastx - bx) / sc;
		}
		if (end) break;
		for (node = m, d = mdepth[m]; d > k; d--, node = mparent[node]) {
			open[d] = node;
			ox[d] = x0;
		}
		depth = mdepth[m];
		lastx = x1;
	}
	dr.n = dn;
}
function stackAt(cx, cy) {
	var r = scv.getBoundingClientRect(), x = cx - r.left, y = cy - r.top, dr = drawn;
	if (y < AXISH) return -1;
	for (var k = 0; k < dr.n; k++)
		if (y >= dr.y[k] && y < dr.y[k] + fh - 1 && x >= dr.x[k] && x < dr.x[k] + Math.max(dr.w[k], 1)) return k;
	return -1;
}
function stackText(k) {
	var nm = mname[drawn.node[k]];
	return E.nametype + " " + names[nm] + " (" + fmtTime(drawn.d[k]) + " at " + fmtTime(drawn.t[k]) +
		", thread " + bands[drawn.band[k]].th.tid + ")";
}
// A drag pans; a drag with Shift held, or one that starts on the time
// axis, selects a span (the band, a shaded element over the canvas, so
// that the chart is not drawn again while it moves) and zooms to it on
// release.  Double-click, Escape or #stack-reset zoom out to the whole
// recording (or range).
var sdrag = null, zband = document.createElement("div");
zband.id = "sc-band";
zband.innerHTML = "<span></span>";
zband.style.display = "none";
document.body.appendChild(zband);
var rbtn = document.createElement("button");
rbtn.id = "stack-reset";
rbtn.hidden = true;
rbtn.textContent = "Reset Zoom";
rbtn.title = "the stack chart's whole recording or range (double-click, Escape)";
$("filters").after(rbtn); /* last before the flexible gap */
// In the stack chart the button keeps its place (the last before the
// toolbar's flexible gap, where it moves nothing) and is shown or not by its
// visibility: a zoom lays nothing out again (showing it laid the page out,
// 1 to 6 ms of the first zoom).  Out of the stack chart it is not there.
function resetShown() {
	var hide = pane.hidden, vis = smoved ? "" : "hidden";
	if (rbtn.hidden != hide) rbtn.hidden = hide;
	if (rbtn.style.visibility != vis) rbtn.style.visibility = vis;
}
function zoomTo(t0, t1) {
	sview = t1 > t0 ? [t0, t1] : null;
	smoved = !!sview;
	stackDraw();
	keepView();
}
function unzoom() {
	sview = null;
	smoved = false;
	stackDraw();
	keepView();
}
// the band's span in the canvas's pixels, from where the drag began to x
function bandSpan(d, cx) {
	var r = scv.getBoundingClientRect(), W = r.width;
	var a = Math.max(0, Math.min(W, d.x - r.left)), z = Math.max(0, Math.min(W, cx - r.left));
	d.a = Math.min(a, z);
	d.z = Math.max(a, z);
	return r;
}
function bandTime(d, x) { return d.v[0] + x / d.sc; }
function bandDraw(cx) {
	var d = sdrag, r = bandSpan(d, cx), s = zband.style;
	s.left = r.left + d.a + "px";
	s.top = r.top + "px";
	s.width = Math.max(d.z - d.a, 1) + "px";
	s.height = r.height + "px";
	s.display = "block";
	zband.firstChild.textContent = fmtTime((d.z - d.a) / d.sc);
}
function bandEnd() {
	zband.style.display = "none";
	sdrag = null;
}
// Escape: a band given up, else the zoom undone (true when it did either)
function stackEscape() {
	if (sdrag && sdrag.zoom) {
		bandEnd();
		return true;
	}
	if (pane.hidden || !smoved) return false;
	unzoom();
	return true;
}
scv.addEventListener("mousemove", function (e) {
	if (sdrag) return;
	var k = stackAt(e.clientX, e.clientY), onAxis = e.clientY - scv.getBoundingClientRect().top < AXISH;
	$("details").textContent = k < 0 ? " " : stackText(k);
	scv.style.cursor = onAxis || e.shiftKey ? "col-resize" : k < 0 ? "default" : "pointer";
});
scv.addEventListener("mouseleave", function () { $("details").textContent = " "; });
scv.addEventListener("wheel", function (e) {
	if (e.shiftKey) return; // scrolls the threads
	e.preventDefault();
	var v = view(), r = scv.getBoundingClientRect();
	var f = Math.exp(Math.max(-1, Math.min(1, e.deltaY * 0.002)));
	var at = v[0] + (e.clientX - r.left) / stackScale, w = (v[1] - v[0]) * f;
	w = Math.max(w, 4 / stackScale * 1e-3 + 1e-3);
	var t0 = at - (at - v[0]) * f;
	zoomTo(t0, t0 + w);
}, { passive: false });
scv.addEventListener("mousedown", function (e) {
	if (e.button) return;
	e.preventDefault();
	var r = scv.getBoundingClientRect();
	sdrag = { x: e.clientX, v: view().slice(), sc: stackScale, moved: false, a: 0, z: 0,
		zoom: e.shiftKey || e.clientY - r.top < AXISH };
});
document.addEventListener("mousemove", function (e) {
	if (!sdrag) return;
	if (Math.abs(e.clientX - sdrag.x) > 3) sdrag.moved = true;
	if (sdrag.zoom) {
		if (sdrag.moved) bandDraw(e.clientX);
		return;
	}
	var dt = (e.clientX - sdrag.x) / stackScale;
	sview = [sdrag.v[0] - dt, sdrag.v[1] - dt];
	smoved = true;
	stackDraw();
	keepView();
});
document.addEventListener("mouseup", function (e) {
	var d = sdrag;
	if (!d) return;
	bandEnd();
	if (!d.zoom || !d.moved) return;
	bandSpan(d, e.clientX);
	if (d.z - d.a >= 1) zoomTo(bandTime(d, d.a), bandTime(d, d.z));
});
scv.addEventListener("dblclick", unzoom);
rbtn.addEventListener("click", unzoom);
pane.addEventListener("scroll", stackDraw);
window.addEventListener("resize", stackDraw);
V.charts.push({ draw: function () { stackDraw(); trackDraw(); } });

var stackBtn = $("stack");
stackBtn.hidden = false;
stackBtn.title = "samples in time order: the wheel zooms, a drag pans, Shift-drag or a drag " +
	"on the time axis zooms to that span, double-click or Escape zooms out";
stackBtn.addEventListener("click", function () { V.setMode("stack"); });

function show(m) {
	pane.hidden = m != "stack";
	stackBtn.classList.toggle("on", m == "stack");
	resetShown();
	fgColor = getComputedStyle(document.documentElement).getPropertyValue("--fg") || "#000";
	trackDraw();
	if (m != "stack") return;
	// #details is a pixel taller holding text (or a blank) than empty:
	// blank from the start, the pane does not shrink at the first hover,
	// which would resize the canvas and paint that frame from fresh
	// buffers (35-50 ms instead of 6)
	if (!$("details").textContent) $("details").textContent = " ";
	stackDraw();
}

// ---- the URL ----------------------------------------------------------

// the stack chart's view in the URL (stack=T0-T1), written a moment after
// the wheel or a drag moves it, as the page's other state is
var hashTimer = 0;
function keepView() {
	clearTimeout(hashTimer);
	hashTimer = setTimeout(function () {
		var q = location.hash.replace(/^#/, "").split("&").filter(function (kv) {
			return kv && !/^stack=/.test(kv);
		}).concat(hash().filter(function (kv) { return /^stack=/.test(kv); }));
		var h = "#" + q.join("&");
		if (h != location.hash) {
			try { history.replaceState(null, "", h); } catch (e) { }
		}
	}, 100);
}
function num(v) { return String(+v.toFixed(3)); }
function readHash(q) {
	var m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(q.range || "");
	var sv = /^(-?\d+(?:\.\d+)?)-(-?\d+(?:\.\d+)?)$/.exec(q.stack || "");
	sel = { t0: 0, t1: 0, tids: [] };
	if (m && +m[2] > +m[1]) {
		sel.t0 = +m[1];
		sel.t1 = +m[2];
	}
	(q.threads || "").split(".").forEach(function (x) {
		if (/^-?\d+$/.test(x) && threads.some(function (th) { return th.tid == +x; })) sel.tids.push(+x);
	});
	label();
	smoved = !!(sv && +sv[2] > +sv[1]);
	sview = smoved ? [+sv[1], +sv[2]] : null;
}
function hash() {
	var q = [];
	if (hasRange()) q.push("range=" + Math.round(sel.t0) + "-" + Math.round(sel.t1));
	if (sel.tids.length) q.push("threads=" + sel.tids.join("."));
	if (smoved && sview) q.push("stack=" + num(sview[0]) + "-" + num(sview[1]));
	return q;
}

var hooks = {
	threads: threads.map(function (th) {
		return { tid: th.tid, pid: th.pid, name: th.name, process: th.process, samples: th.n };
	}),
	ready: false, error: null, span: span, tunit: TL.tunit,
	select: function (t0, t1, tids) { select(t0, t1, tids || sel.tids); },
	clear: clear,
	selection: function () { return { t0: sel.t0, t1: sel.t1, tids: sel.tids.slice() }; },
	time: function (x) { return rows.length ? trackTime(rows[0].cv, x) : 0; },
	axis: function () {
		var cp = function (l) { return l.map(function (k) { return { t: k.t, x: k.x, label: k.label }; }); };
		return { tracks: cp(axes.tracks), stack: cp(axes.stack), selection: axes.sel && Object.assign({}, axes.sel) };
	},
	activity: function (tid) {
		var r = rows.filter(function (r) { return r.th.tid == tid; })[0];
		if (!r || !r.bins) return null;
		return { bin: (span[1] - span[0] + interval) * BINPX / r.bins.W, px: BINPX, max: binMax,
			on: Array.from(r.bins.on), off: Array.from(r.bins.off) };
	},
	stack: function () {
		var v = view(), out = [];
		for (var k = 0; k < drawn.n; k++)
			out.push({ name: names[mname[drawn.node[k]]], depth: mdepth[drawn.node[k]], x: drawn.x[k],
				y: drawn.y[k], w: drawn.w[k], tid: bands[drawn.band[k]].th.tid, t: drawn.t[k], d: drawn.d[k] });
		var b = sdrag && sdrag.zoom && sdrag.moved && zband.style.display != "none" ?
			{ t0: bandTime(sdrag, sdrag.a), t1: bandTime(sdrag, sdrag.z), x: sdrag.a, w: sdrag.z - sdrag.a } : null;
		return { t0: v[0], t1: v[1], zoomed: smoved, band: b, boxes: out };
	},
	draw: stackDraw
};
// The samples are decoded once the flame graph has been painted, in
// steps with frames between them: the page shows the whole profile first,
// the tracks' graphs a moment later.  Then the range's tree and the stack
// chart's walk run once (the compiler's warm-up, so that the first
// selection and zoom are as quick as the next).
function fail(err) {
	hooks.error = err.message;
	$("tl-range").textContent = "ember: cannot show the samples: " + err.message;
	hooks.ready = true;
}
var steps = [readData, decodeStacks, decodeSamples, function () {
	ready = true;
	hooks.span = span;
	trackDraw();
}, function () {
	var keep = sel;
	sel = { t0: span[0], t1: span[0] + (span[1] - span[0]) / 10 + interval, tids: [] };
	tree(); // twice: both pools' arrays made and written once
	tree();
	sel = keep;
}, warm, warm, warm, function () {
	if (active()) V.rebuild();
	else if (V.S.mode == "stack") stackDraw();
	hooks.ready = true;
}];
function warm() {
	// The stack chart's code run over at the zoom levels a first use
	// goes through, drawn into its canvas while hidden (the next real
	// draw replaces every pixel): a page's first zooms were the JIT's
	// cold ones, 10 to 45 ms each against 5 to 8 ms once warm.  Three
	// times, each a step of its own: run once, band had only its loops
	// compiled (on the stack), and the optimising compiler made the
	// whole of it during the first zooms, which ran meanwhile in the
	// interpreter and entered that loop code again at every call.
	var v0 = [span[0], span[1] + interval], W = 1300, H = 400;
	stackLayout();
	stackH = H;
	if (scv.width != W || scv.height != H) {
		scv.width = W;
		scv.height = H;
	}
	for (var r = 0; r < 8; r++) {
		var v = [v0[0], v0[0] + (v0[1] - v0[0]) * Math.pow(0.6, r)];
		drawn.n = 0;
		bands.forEach(function (b, bi) { band(b, bi, AXISH + BANDHEAD, v, W / (v[1] - v[0]), W); });
		paint(W, H, 1);
	}
	// and over many short spans, quick each: a walk called this often is
	// compiled whole, where a few long walks had only their loops
	// compiled on the stack, and the whole of band made by the optimising
	// compiler, on the second core, during the first real zooms
	for (r = 0; r < 40; r++) {
		var a = v0[0] + (v0[1] - v0[0]) * r / 40;
		v = [a, a + (v0[1] - v0[0]) / 20000];
		drawn.n = 0;
		bands.forEach(function (b, bi) { band(b, bi, AXISH + BANDHEAD, v, W / (v[1] - v[0]), W); });
	}
	drawn.n = 0;
}
function step() {
	try {
		steps.shift()();
	} catch (err) {
		return fail(err);
	}
	if (steps.length) requestAnimationFrame(function () { setTimeout(step, 0); });
}
function start() { requestAnimationFrame(function () { setTimeout(step, 0); }); }
if (document.readyState == "loading") document.addEventListener("DOMContentLoaded", start);
else start();
return { tree: tree, show: show, readHash: readHash, hash: hash, hooks: hooks, redraw: trackDraw };
};
})();
