// The harness of the node browser suites (speedscope.js, timeorder.js,
// firefox.js): the binary under test, a work folder, and check/finish,
// which end a suite with the line "NAME: N passed, M failed".
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");

module.exports = function suite(name) {
	const top = path.resolve(__dirname, "../..");
	const s = {
		top,
		ember: path.resolve(top, process.env.EMBER || "build/ember"),
		tmp: fs.mkdtempSync(path.join(os.tmpdir(), `ember-${name}-`)),
		pass: 0,
		fail: 0,
	};
	s.check = (what, ok, detail) => {
		if (ok) {
			s.pass++;
		} else {
			s.fail++;
			console.log(`FAIL ${name}: ${what}` +
				(detail === undefined ? "" : `: ${JSON.stringify(detail)}`));
		}
	};
	// Removes the work folder, prints the closing line and exits.
	s.finish = () => {
		fs.rmSync(s.tmp, { recursive: true, force: true });
		console.log(`${name}: ${s.pass} passed, ${s.fail} failed`);
		process.exit(s.fail ? 1 : 0);
	};
	return s;
};
