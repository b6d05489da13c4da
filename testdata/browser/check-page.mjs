#!/usr/bin/env node
// Loads a service's page for people in headless Chromium (Debian's /usr/bin/chromium, or
// $CHROMIUM), records every console error and page error, clicks the first "try it" button,
// waits for its output, and writes a full-page screenshot.
// Usage: node check-page.mjs --url BASE/ --screenshot PATH [--timeout SECONDS]
// Prints one JSON line: {"title", "routes": [h3 texts], "links": [hrefs],
// "console_errors_on_load": [], "console_errors": [after the click],
// "page_errors": [], "failed_requests": [], "try_it": {"path", "output"}, "screenshot"}.
// Exits 0 whatever the page did (the Rust test judges), 2 on usage errors, 1 when the browser
// cannot run (the message on stderr).
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const USAGE = "node check-page.mjs --url BASE/ --screenshot PATH [--timeout SECONDS]";

function usageExit(message) {
  process.stderr.write(`${message}\nusage: ${USAGE}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      url: { type: "string" },
      screenshot: { type: "string" },
      timeout: { type: "string", default: "30" },
    },
    strict: true,
  }));
} catch (error) {
  usageExit(error.message);
}
if (!values.url || !values.screenshot) usageExit("--url and --screenshot are required");
const timeout = Number(values.timeout) * 1000;
if (!(timeout > 0)) usageExit("--timeout must be a positive number of seconds");

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  // Root in a container has no user namespace for the sandbox.
  args: ["--no-sandbox"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(timeout);
  const report = { console_errors: [], page_errors: [], failed_requests: [] };
  page.on("console", (message) => {
    if (message.type() === "error") report.console_errors.push(message.text());
  });
  page.on("pageerror", (error) => report.page_errors.push(String(error)));
  page.on("requestfailed", (request) =>
    report.failed_requests.push(`${request.url()}: ${request.failure()?.errorText}`),
  );
  // A 402 is the expected answer of try-it, not a failed resource: only other 4xx/5xx count.
  page.on("response", (response) => {
    if (response.status() >= 400 && response.status() !== 402) {
      report.failed_requests.push(`${response.url()}: HTTP ${response.status()}`);
    }
  });
  await page.goto(values.url, { waitUntil: "load" });
  // Chromium logs every 4xx answer of fetch as a console error of its own; the try-it's 402 is
  // expected, so the errors are kept apart: those of loading the page, and those after the click.
  report.console_errors_on_load = report.console_errors.splice(0);
  report.title = await page.title();
  report.routes = await page.locator("section.route h3").allInnerTexts();
  report.links = await page.locator("header a").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
  const button = page.locator("button.try").first();
  const path = await button.getAttribute("data-path");
  const output = page.locator(`#${await button.getAttribute("data-output")}`);
  await button.click();
  await output.filter({ hasNotText: "sending…" }).filter({ hasText: /HTTP/ }).waitFor();
  report.try_it = { path, output: await output.innerText() };
  await page.screenshot({ path: values.screenshot, fullPage: true });
  report.screenshot = values.screenshot;
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await browser.close();
}
