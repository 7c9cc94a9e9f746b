// ember's speedscope files against speedscope itself (npm `speedscope`):
// its published JSON schema validates them (ajv), and its page, in
// headless Chromium, opens them.  Ends with "speedscope: N passed, M
// failed".
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { chromium } = require("playwright-core");
const Ajv = require("ajv");

const { top, ember, tmp, check, finish } = require("./suite")("speedscope");
const release = path.join(__dirname, "node_modules/speedscope/dist/release");

// ember collapse ARGS -o NAME.speedscope.json; returns the path.
function convert(name, ...args) {
	const out = path.join(tmp, `${name}.speedscope.json`);
	execFileSync(ember, ["collapse", ...args, "-o", out],
		{ stdio: ["ignore", "ignore", "pipe"] });
	return out;
}

const data = path.join(top, "tests/interchange");
const perf = path.join(top, "tests/conformance/collapse/perf/inputs");
const files = [
	["folded", convert("folded", "folded", path.join(data, "names.folded")), 1],
	["go cpu", convert("go-cpu", path.join(data, "go-cpu.pb.gz")), 1],
	["perf threads", convert("threads", "perf", "--tid",
		path.join(perf, "perf-iperf-stacks-pidtid-01.txt.gz")), 0],
	// (two threads' spans: a profile each)
	["trace events", convert("chrome", "chrome",
		path.join(data, "chrome-begin-end.json")), 0],
];

const schema = JSON.parse(fs.readFileSync(
	path.join(release, "file-format-schema.json"), "utf8"));
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
for (const [what, file, one] of files) {
	const doc = JSON.parse(fs.readFileSync(file, "utf8"));
	check(`${what}: valid by speedscope's schema`, validate(doc),
		(validate.errors || []).slice(0, 3));
	check(`${what}: ${one ? "one profile" : "a profile per thread"}`,
		one ? doc.profiles.length == 1 : doc.profiles.length > 1,
		doc.profiles.length);
}

(async () => {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu"],
	});
	for (const [what, file] of files) {
		const page = await browser.newPage();
		const errors = [];
		page.on("pageerror", (e) => errors.push(e.message));
		page.on("dialog", (d) => { errors.push(d.message()); d.dismiss(); });
		await page.goto("file://" + path.join(release, "index.html"));
		await page.locator("input[type=file]").setInputFiles(file);
		// speedscope titles the page after the file's name
		const name = JSON.parse(fs.readFileSync(file, "utf8")).name;
		let title = "";
		for (let i = 0; i < 100 && !title.includes(name); i++) {
			await page.waitForTimeout(100);
			title = await page.title();
		}
		check(`${what}: speedscope opens it`, title.includes(name),
			title);
		const body = await page.evaluate(() => document.body.innerText);
		check(`${what}: no import error`,
			!/unrecognized|something went wrong|error/i.test(body) &&
			errors.length == 0, errors.concat([body.slice(0, 200)]));
		await page.close();
	}
	await browser.close();
	finish();
})().catch((e) => {
	check(e.message, false);
	finish();
});
