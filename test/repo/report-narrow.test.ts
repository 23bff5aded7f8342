/// <reference lib="dom" />
/**
 * report.html looked at in headless Chromium: on a phone (390 px) diagnostics and summary rows
 * are cards that fit the screen with readable message lines, and the service graph's edge
 * labels never overlap, however busy a node is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Page } from 'playwright-core';
import type { Diagnostic } from '../../src/base/index.js';
import { buildReport, renderReportHtml } from '../../src/repo/index.js';
import type { StageRun } from '../../src/repo/index.js';
import { CHROMIUM, CHROMIUM_ARGS, skipWithout } from '../support/capabilities.js';
import { busyGraph } from '../support/graphs.js';
import { withTempDir } from '../support/temp.js';

const MESSAGE =
  'backend "authentik_server" exposes tcp/443 which anchor anchord-authentik already forwards to another backend of this project';

function diagnostics(n: number): Diagnostic[] {
  return Array.from({ length: n }, (_, i) => ({
    severity: i % 3 === 0 ? 'error' : 'warning',
    code: 'ANCHOR_PORT_CONFLICT',
    module: 'anchor',
    object: `service ix-authentik/authentik_server_with_a_rather_long_name_${i}`,
    file: `stacks/identity/authentik/docker-compose.production.override.yml`,
    line: 10 + i,
    column: 7,
    message: `${MESSAGE} (${i})`,
  }));
}

const runs: StageRun[] = [
  {
    module: 'anchor',
    input: 'stacks',
    ms: 1,
    result: {
      diagnostics: diagnostics(6),
      outputs: {},
      counts: { projects: 8, anchors: 3, backends: 12, entries: 14, overlaps: 0 },
    },
  },
  {
    module: 'policy',
    input: 'k8s/linkerd',
    ms: 1,
    result: { diagnostics: [], outputs: {}, counts: { files: 14, servers: 9, routes: 31 } },
  },
];

async function withPage(
  width: number,
  html: string,
  fn: (page: Page) => Promise<void>,
): Promise<void> {
  await withTempDir('report-narrow', async (dir) => {
    const file = join(dir, 'report.html');
    await writeFile(file, html);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
    try {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      await page.goto(pathToFileURL(file).href);
      await fn(page);
    } finally {
      await browser.close();
    }
  });
}

/** Words per rendered line of each element matching `selector` (lines counted by their tops). */
async function wordsPerLine(page: Page, selector: string): Promise<number[]> {
  return page.$$eval(selector, (cells) =>
    cells.map((cell) => {
      const range = document.createRange();
      const text = cell.firstChild ?? cell;
      range.selectNodeContents(text);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      const words = (text.textContent ?? '').trim().split(/\s+/).length;
      return words / Math.max(1, tops.size);
    }),
  );
}

test('at 390 px, diagnostics and summary rows are cards that fit and read in full lines', async (t) => {
  if (skipWithout(t, 'chromium')) return;
  const html = renderReportHtml(buildReport('repo', runs, []), {});
  await withPage(390, html, async (page) => {
    const cards = await page.$$eval('#diagnostics tbody tr, #summary tbody tr', (rows) =>
      rows.map((r) => {
        const box = r.getBoundingClientRect();
        return { left: box.left, right: box.right, display: getComputedStyle(r).display };
      }),
    );
    assert.equal(cards.length, 6 + 2);
    for (const card of cards) {
      assert.equal(card.display, 'block', 'a row is a card');
      assert.ok(
        card.left >= 0 && card.right <= 390,
        `card within the viewport: ${JSON.stringify(card)}`,
      );
    }
    const perLine = await wordsPerLine(page, '#diagnostics td.message');
    assert.equal(perLine.length, 6);
    // The table layout this replaces wrapped the message to a word or two per line.
    for (const words of perLine) assert.ok(words >= 3.5, `a message line holds ${words} words`);
    const labels = await page.$$eval('#diagnostics tbody tr:first-child td', (cells) =>
      cells.map((c) => getComputedStyle(c, '::before').content),
    );
    assert.ok(labels.includes('"severity "') && labels.includes('"code "'), labels.join(','));
    const overflow = Number(
      await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
    );
    assert.ok(overflow <= 1, 'no sideways scrolling');
  });
});

test('at a desktop width the diagnostics stay a table', async (t) => {
  if (skipWithout(t, 'chromium')) return;
  const html = renderReportHtml(buildReport('repo', runs, []), {});
  await withPage(1280, html, async (page) => {
    const display = await page.$eval('#diagnostics tbody tr', (r) => getComputedStyle(r).display);
    assert.equal(display, 'table-row');
  });
});

test('"Who can reach whom": no edge label overlaps another, at the busiest node too', async (t) => {
  if (skipWithout(t, 'chromium')) return;
  const graph = busyGraph();
  const html = renderReportHtml(buildReport('repo', [], []), { catalog: { serviceGraph: graph } });
  await withPage(1280, html, async (page) => {
    const boxes = await page.$$eval('#service-graph .edge-label', (labels) =>
      labels.map((l) => {
        const r = l.getBoundingClientRect();
        return { x: r.x, y: r.y, w: r.width, h: r.height, text: l.textContent ?? '' };
      }),
    );
    const badges = await page.$$eval('#service-graph .edge-badge', (b) => b.length);
    const legend = await page.$$eval('#graph-legend li', (items) => items.length);
    // Every flow is told: as a label on its arrow, or as a number the legend reads.
    assert.equal(boxes.length - badges + legend, graph.edges.length);
    assert.ok(boxes.length - badges > graph.edges.length / 2, 'most labels are drawn as text');
    for (const [i, a] of boxes.entries())
      for (const b of boxes.slice(i + 1))
        assert.ok(
          a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y,
          `labels ${JSON.stringify(a)} and ${JSON.stringify(b)} overlap`,
        );
    const titles = await page.$$eval('#service-graph .edge title', (ts) => ts.length);
    assert.equal(titles, graph.edges.length, 'every arrow names its flow on hover and focus');
  });
});
