#!/usr/bin/env node
// The html test (tests/html.cmake, docs/report.md): opens a report written by `assay report` in
// headless Chromium (Debian's chromium, driven by puppeteer-core: no browser download), and
//   - fails on any console error, uncaught exception or failed request (the page must need
//     nothing from outside),
//   - checks window.assayReport against the results documents given: every case is in the
//     data, and the time plots drew every ok case with samples, no more, no fewer,
//   - fails on a canvas too large to draw,
//   - saves a full-page screenshot.
// usage: check_report.js CHROMIUM REPORT.html SCREENSHOT.png [--compare] [--history] RESULTS.json...
'use strict';
const fs = require('fs');
const path = require('path');
const puppeteer = require('puppeteer-core');

const [chromium, reportFile, shot, ...rest] = process.argv.slice(2);
const expectSections = rest.filter((a) => a.startsWith('--')).map((a) => a.slice(2));
const documents = rest.filter((a) => !a.startsWith('--'));

function expectedCounts() {
  let cases = 0, plotted = 0;
  for (const f of documents) {
    const doc = JSON.parse(fs.readFileSync(f, 'utf8'));
    for (const c of doc.cases) {
      cases += 1;
      if (c.status === 'ok' && c.measurement && c.measurement.samples_ns.length > 0 && c.summary_ns) plotted += 1;
    }
  }
  return {cases, plotted};
}

(async () => {
  const problems = [];
  const browser = await puppeteer.launch({
    executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({width: 1400, height: 900});
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push('console error: ' + m.text());
      else if (m.type() === 'warn') console.log('console warning: ' + m.text());
    });
    page.on('pageerror', (e) => problems.push('uncaught: ' + e.message));
    page.on('requestfailed', (r) => problems.push('request failed: ' + r.url()));
    page.on('request', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push('network request: ' + r.url());
    });
    await page.goto('file://' + path.resolve(reportFile), {waitUntil: 'load', timeout: 60000});
    await page.waitForFunction(() => window.assayReport && window.assayReport.ready, {timeout: 30000})
      .catch(() => problems.push('the page script did not finish (window.assayReport.ready)'));
    const got = await page.evaluate(() => window.assayReport || null);
    if (await page.evaluate(() => window.pwned !== undefined)) problems.push('text from the data ran as a script');
    const want = expectedCounts();
    console.log('report:', JSON.stringify(got), 'documents:', JSON.stringify(want));
    if (!got) problems.push('window.assayReport is missing');
    else {
      if (got.cases !== want.cases) problems.push(`cases in the page ${got.cases} != cases in the documents ${want.cases}`);
      if (got.plotted !== want.plotted) problems.push(`cases plotted ${got.plotted} != ok cases with samples ${want.plotted}`);
      for (const s of ['overview', ...expectSections])
        if (!got.sections.includes(s)) problems.push(`section '${s}' is missing (have ${got.sections.join(', ')})`);
    }
    // A canvas past 32,767 device pixels is blank in Chromium, without an error.
    const tall = await page.evaluate(() => [...document.querySelectorAll('canvas')]
      .filter((c) => c.width > 32767 || c.height > 32767).map((c) => c.width + 'x' + c.height));
    if (tall.length) problems.push('canvases too large to draw: ' + tall.join(', '));
    // No plot opens on an empty window (a dataZoom end of 0%).
    const empty = await page.evaluate(() => [...document.querySelectorAll('.chart')]
      .map((box) => window.echarts.getInstanceByDom(box)).filter((c) => c)
      .filter((c) => (c.getOption().dataZoom || []).some((z) => z.end !== undefined && z.end - (z.start || 0) <= 0)).length);
    if (empty) problems.push(empty + ' plots open with an empty zoom window');
    // The whole page, unless it is taller than a screenshot can be (a table of thousands of cases).
    const tallPage = await page.evaluate(() => document.documentElement.scrollHeight > 16000);
    await page.screenshot({path: shot, fullPage: !tallPage});
    console.log('screenshot:', shot);
    // Also one picture per section, for reading a long page (ASSAY_REPORT_SECTION_SHOTS=1).
    if (process.env.ASSAY_REPORT_SECTION_SHOTS && got) {
      for (const id of got.sections) {
        const e = await page.$('#' + id);
        const file = shot.replace(/\.png$/, '') + '-' + id + '.png';
        if (e) await e.screenshot({path: file});
      }
    }
  } finally {
    await browser.close();
  }
  if (problems.length) {
    for (const p of problems) console.error('FAIL: ' + p);
    process.exit(1);
  }
  console.log('ok');
})().catch((e) => {
  console.error('FAIL: ' + (e && e.stack ? e.stack : e));
  process.exit(1);
});
