function leafA(n) { let s = 0; for (let i = 0; i < n; i++) s += i * i % 7; return s; }
function leafB(n) { let s = 1; for (let i = 0; i < n; i++) s ^= (s << 1) + i; return s; }
function middle(n) { return leafA(n) + leafB(n / 2); }
let t = 0; const end = Date.now() + 600; while (Date.now() < end) t += middle(200000);
if (t === 42) console.log(t);
