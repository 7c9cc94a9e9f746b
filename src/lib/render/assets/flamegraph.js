// ember's flame graph script: details on hover, click to zoom, regular
// expression search, state kept in the URL (s, x, y, i), as flamegraph.pl's.
//
// Frames are sibling <g>/<a> elements in pre-order (frame i's subtree is
// frames i .. E[i]-1), in blocks of fg.fanout frames, blocks of fg.fanout
// blocks, and so on, so that the document stays shallow however deep the
// stacks; fg.data holds the frames' exact geometry in counts.  The DOM is
// written only where something changes: a zoom rewrites the zoomed subtree
// and the ancestors, and hides the runs of frames between them with the
// fewest blocks that cover them; a search fills the matching frames at
// least a pixel wide with its colour, and covers the narrower ones, often
// tens of thousands, with one path drawn over them.
var details, unzoombtn, searchbtn, icbtn, matchedtxt, el, blk, n = 0;
var S, W, E, P, drawn, orig = [], hidden = [], zoomed = 0;
var D, tips, hit, own, fills = [], cover, term = "", searching = false;
var ic = false;
var full = fg.width - 2 * fg.xpad, ctx, cw = {};

function $(id) { return document.getElementById(id); }

function init(evt) {
	details = $("details").firstChild;
	unzoombtn = $("unzoom");
	searchbtn = $("search");
	icbtn = $("ignorecase");
	matchedtxt = $("matched");
	var frames = $("frames");
	collect(frames);
	decode(fg.data || []);

	frames.addEventListener("mouseover", function (e) {
		var i = frame(e.target);
		if (i < 0) return;
		var s = fg.nametype + " " + tips[i];
		if (zoomed && i > zoomed && i < E[zoomed])
			s += " [" + (100 * W[i] / W[zoomed]).toFixed(2) +
				"% of zoomed frame]";
		details.nodeValue = s;
	});
	frames.addEventListener("mouseout", function () {
		details.nodeValue = " ";
	});
	frames.addEventListener("click", function (e) {
		var i = frame(e.target);
		if (i < 0) return;
		// a linked frame follows its link; Ctrl-click zooms it
		if (el[i].localName == "a" && !e.ctrlKey) return;
		e.preventDefault();
		zoom(i);
		var p = params();
		delete p.x;
		delete p.y;
		if (zoomed) { // as loaded, as flamegraph.pl's
			p.x = orig[zoomed] ? orig[zoomed][0] :
				rect(zoomed).getAttribute("x");
			p.y = rect(zoomed).getAttribute("y");
		}
		setparams(p);
	});
	unzoombtn.addEventListener("click", function () {
		zoom(0);
		var p = params();
		delete p.x;
		delete p.y;
		setparams(p);
	});
	searchbtn.addEventListener("click", function () {
		if (searching) reset_search();
		else search_prompt();
	});
	icbtn.addEventListener("click", toggle_ignorecase);
	window.addEventListener("keydown", function (e) {
		var k = e.keyCode, ctrl = e.ctrlKey || e.metaKey;
		if (k == 114 || (ctrl && k == 70)) search_prompt(); // F3, Ctrl-F
		else if (ctrl && k == 73) toggle_ignorecase(); // Ctrl-I
		else if (k == 27) return reset_search(); // Escape
		else return;
		e.preventDefault();
	});

	// restore the state of a shared URL
	var p = params();
	if (p.x && p.y && /^[0-9.-]+$/.test(p.x + p.y)) {
		var r = frames.querySelectorAll(
			'rect[x="' + p.x + '"][y="' + p.y + '"]'), best = -1;
		for (var k = 0; k < r.length; k++) {
			var i = frame(r[k]);
			if (i >= 0 && (best < 0 || W[i] > W[best])) best = i;
		}
		if (best >= 0) zoom(best);
	}
	ic = p.i == "1";
	icbtn.classList.toggle("show", ic);
	if (p.s) search(p.s);
}

// The frames (el) and the levels of blocks above them: blk[1] holds the
// blocks of fg.fanout frames, blk[2] those of fg.fanout blocks, ...
function collect(frames) {
	var lv = [frames], up = [], i, c;
	for (;;) {
		var next = [];
		for (i = 0; i < lv.length; i++)
			for (c = lv[i].firstElementChild; c; c = c.nextElementSibling)
				next.push(c);
		c = next.length && next[0].firstElementChild;
		if (!c || c.localName == "title") break;
		up.unshift(next);
		lv = next;
	}
	el = next;
	blk = [null].concat(up);
	// not as written: hide frames one by one
	for (i = 1, c = fg.fanout; i < blk.length; i++, c *= fg.fanout)
		if (blk[i].length != Math.ceil(el.length / c)) blk = [null];
}

// Exact geometry: depth, gap, width triples (see svg.c).
function decode(d) {
	var m = el.length, st = [], cur, i;
	if (d.length != 3 * m) m = 0; // not ours: no zoom, no search
	S = new Float64Array(m);
	W = new Float64Array(m);
	E = new Int32Array(m);
	P = new Int32Array(m);
	drawn = new Int32Array(m);
	hit = new Uint8Array(m);
	own = new Uint8Array(m);
	cur = new Float64Array(m);
	D = new Int32Array(m);
	for (i = 0; i < m; i++) {
		var g = d[3 * i + 1], w = d[3 * i + 2];
		D[i] = d[3 * i];
		while (st.length && D[st[st.length - 1]] >= D[i])
			E[st.pop()] = i;
		var p = st.length ? st[st.length - 1] : -1;
		var end = p < 0 ? g + w : cur[p] - g;
		P[i] = p;
		S[i] = end - w;
		W[i] = w;
		if (p >= 0) cur[p] = S[i]; // where p's next child ends
		cur[i] = end;
		st.push(i);
	}
	while (st.length) E[st.pop()] = m;
	n = m;
	// the details of every frame, for the search, all at once: the
	// frames' text is "\n", then "details\nlabel\n" per frame, then "\n"
	tips = $("frames").textContent.split("\n");
	var fast = n && tips.length == 2 * n + 3 && tips[1] == tip(0) &&
		tips[2 * n - 1] == tip(n - 1); // else one by one
	for (i = 0; i < n; i++) tips[i] = fast ? tips[2 * i + 1] : tip(i);
	tips.length = n;
}

// The index of the frame holding node t, or -1: a binary search by
// document position, elements being in document order.
function frame(t) {
	var g = t.closest && t.closest("#frames g, #frames a"), lo = 0,
		hi = n - 1;
	if (!g) return -1;
	while (lo < hi) {
		var mid = (lo + hi + 1) >> 1;
		if (el[mid].compareDocumentPosition(g) & 2) hi = mid - 1;
		else lo = mid;
	}
	return el[lo] == g ? lo : -1;
}
function tip(i) { return el[i].firstElementChild.textContent; }
function rect(i) { return el[i].firstElementChild.nextElementSibling; }
function text(i) {
	var t = rect(i).nextElementSibling;
	return t && t.localName == "text" ? t : null;
}

// zoom
function zoom(f) {
	if (!n || !(W[f] > 0)) return;
	var a, c, i, z = zoomed;
	// a frame as wide as the one zoomed on (often the only child of the
	// root) draws its subtree where it is: nothing to move
	var same = S[f] == S[z] && W[f] == W[z];
	for (i = 0; i < hidden.length; i++)
		hidden[i].classList.remove("hide");
	hidden = [];
	for (a = P[zoomed]; a >= 0; a = P[a]) el[a].classList.remove("parent");
	zoomed = f;
	// ancestors take the full width; the frames between them (their
	// other children's subtrees) and after f's subtree are hidden
	hide(E[f], n);
	for (c = f, a = P[f]; a >= 0; c = a, a = P[a]) {
		el[a].classList.add("parent");
		hide(a + 1, c);
		if (drawn[a] != -1) draw(a, -1);
	}
	hide(0, c);
	for (i = f; i < E[f]; i++)
		if (drawn[i] == z && same) drawn[i] = f;
		else if (drawn[i] != f) draw(i, f);
	unzoombtn.classList.toggle("hide", !f);
	if (searching) paint();
}

// Hides frames lo .. hi-1: each time, the largest block that starts at lo
// and ends by hi.
function hide(lo, hi) {
	var k = fg.fanout;
	while (lo < hi) {
		var l = 0, s = 1;
		while (l + 1 < blk.length && lo % (s * k) == 0 &&
			Math.min(lo + s * k, n) <= hi) {
			s *= k;
			l++;
		}
		var e = l ? blk[l][lo / s] : el[lo];
		e.classList.add("hide");
		hidden.push(e);
		lo += s;
	}
}

// Draws frame i as in the zoom on frame z (0: as loaded; -1: ancestor).
function draw(i, z) {
	var r = rect(i), t = text(i), o = orig[i];
	if (!o)
		o = orig[i] = [r.getAttribute("x"), r.getAttribute("width"),
			t && t.getAttribute("x"), t && t.textContent];
	if (!z) {
		r.setAttribute("x", o[0]);
		r.setAttribute("width", o[1]);
		if (t && !o[2]) t.remove(); // made by the zoom
		else if (t) {
			t.setAttribute("x", o[2]);
			t.textContent = o[3];
		}
	} else {
		var x = fg.xpad, w = full;
		if (z > 0) {
			x += (S[i] - S[z]) * full / W[z];
			w = W[i] * full / W[z];
		}
		r.setAttribute("x", x);
		r.setAttribute("width", w);
		var s = label(i, w);
		if (s && !t) {
			t = document.createElementNS(r.namespaceURI, "text");
			t.setAttribute("y", +r.getAttribute("y") +
				r.getAttribute("height") / 2 + 3);
			r.parentNode.insertBefore(t, r.nextSibling);
		}
		if (t) {
			t.setAttribute("x", x + 3);
			t.textContent = s;
		}
	}
	if ((z < 0) != (drawn[i] < 0)) { // ancestors are drawn faded
		r.classList.toggle("faded", z < 0);
		if (t) t.classList.toggle("faded", z < 0);
	}
	drawn[i] = z;
}

// The label of frame i in a box w wide: its name, cut with ".." to fit.
function label(i, w) {
	w -= 3;
	if (w < 2 * fg.fontsize * fg.fontwidth) return "";
	var s = tips[i].replace(/ ?\([^(]*\)$/, ""), dots = 2 * width("."),
		sum = 0, fit = 0, k;
	for (k = 0; k < s.length; k++) {
		sum += width(s[k]);
		if (sum + dots <= w) fit = k + 1;
		else if (sum > w) break;
	}
	if (k == s.length && sum <= w) return s;
	if (fg.truncleft) { // inferno's way: ".." and the end of the name
		for (sum = dots, k = s.length; k > 0; k--) {
			sum += width(s[k - 1]);
			if (sum > w) break;
		}
		if (k < s.length && (s.charCodeAt(k) & 0xfc00) == 0xdc00) k++;
		return k < s.length ? ".." + s.slice(k) : "";
	}
	if (fit > 0 && (s.charCodeAt(fit - 1) & 0xfc00) == 0xd800) fit--;
	return fit > 0 ? s.slice(0, fit) + ".." : "";
}

// The advance width of a character, measured once.
function width(c) {
	var v = cw[c];
	if (v !== undefined) return v;
	if (ctx === undefined) {
		ctx = null;
		try {
			var cs = getComputedStyle(details.parentNode);
			ctx = document.createElementNS(
				"http://www.w3.org/1999/xhtml", "canvas")
				.getContext("2d");
			ctx.font = cs.fontSize + " " + cs.fontFamily;
		} catch (e) {}
	}
	v = ctx ? ctx.measureText(c).width : fg.fontsize * fg.fontwidth;
	return (cw[c] = v);
}

// search
function search_prompt() {
	var t = prompt("Enter a search term (regexp allowed, eg: ^ext4_)" +
		(ic ? ", ignoring case" : "") +
		"\nPress Ctrl-i to toggle case sensitivity", term);
	if (t != null) search(t);
}
function toggle_ignorecase() {
	ic = !ic;
	icbtn.classList.toggle("show", ic);
	if (searching) search(term);
	else setparams(params());
}
function reset_search() {
	if (!searching) return;
	mark(null);
	searching = false;
	searchbtn.classList.remove("show");
	searchbtn.firstChild.nodeValue = "Search";
	matchedtxt.classList.add("hide");
	matchedtxt.firstChild.nodeValue = " ";
	setparams(params());
}
function search(t) {
	var re;
	term = t;
	if (!t) return reset_search();
	try {
		re = new RegExp(t, ic ? "i" : "");
	} catch (e) {
		re = null;
	}
	var c = mark(re);
	searching = true;
	searchbtn.classList.add("show");
	searchbtn.firstChild.nodeValue = "Reset Search";
	matchedtxt.classList.remove("hide");
	var pct = n ? 100 * c / W[0] : 0;
	matchedtxt.firstChild.nodeValue = re ? "Matched: " +
		(pct == 100 ? pct : pct.toFixed(1)) + "%" : "Invalid regexp";
	setparams(params());
}

// Marks the frames whose details match re (none if re is null); returns
// the width they cover, nested matches counting once.
function mark(re) {
	var i, c = 0;
	for (i = 0; i < n; i++) hit[i] = re ? re.test(tips[i]) : 0;
	paint();
	for (i = 0; i < n;)
		if (hit[i]) {
			c += W[i];
			i = E[i];
		} else i++;
	return c;
}

// Shows the matches among the frames on screen (the ancestors and the
// subtree of the zoomed frame): its own fill for a frame at least a pixel
// wide (and for one that was), the covering path for the others.
function paint() {
	var i, a, k = full / W[zoomed], d = [], h = fg.frameheight - 1;
	for (i = 0; i < n; i++)
		if (own[i] && !hit[i]) fill(i, 0);
	for (a = P[zoomed]; a >= 0; a = P[a])
		if (hit[a] && !own[a]) fill(a, 1);
	for (i = zoomed; i < E[zoomed]; i++) {
		if (!hit[i] || own[i]) continue;
		var w = W[i] * k;
		if (w >= 1) {
			fill(i, 1);
			continue;
		}
		var y = fg.inverted ? fg.ypad1 + D[i] * fg.frameheight :
			fg.height - fg.ypad2 - (D[i] + 1) * fg.frameheight + 1;
		d.push("M" + round(fg.xpad + (S[i] - S[zoomed]) * k) + " " + y +
			"h" + round(w) + "v" + h + "h" + round(-w) + "z");
	}
	if (!cover) {
		cover = document.createElementNS($("frames").namespaceURI, "path");
		cover.setAttribute("fill", fg.searchcolor);
		cover.setAttribute("pointer-events", "none");
	}
	cover.setAttribute("d", d.join(""));
	if (d.length) $("frames").appendChild(cover);
	else cover.remove();
}
function fill(i, on) {
	var r = rect(i);
	if (fills[i] == null) fills[i] = r.getAttribute("fill");
	r.setAttribute("fill", on ? fg.searchcolor : fills[i]);
	own[i] = on;
}
function round(v) { return Math.round(v * 1000) / 1000; }

// URL parameters
function params() {
	var p = {}, a = location.search.slice(1).split("&");
	for (var i = 0; i < a.length; i++) {
		var kv = a[i].split("=");
		try {
			if (kv[0] && kv[1]) p[kv[0]] = decodeURIComponent(kv[1]);
		} catch (e) {}
	}
	return p;
}
function setparams(p) {
	delete p.s;
	delete p.i;
	if (searching) p.s = term;
	if (ic) p.i = 1;
	var q = [];
	for (var k in p) q.push(k + "=" + encodeURIComponent(p[k]));
	try {
		history.replaceState(null, "", q.length ? "?" + q.join("&") :
			location.pathname);
	} catch (e) {}
}
