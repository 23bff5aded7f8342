/**
 * The build report at fleet scale: report.html for 20,000 hosts × 40 layers (plus 2,000
 * diagnostics), its size, the time to render it, and the time headless Chromium takes to load
 * it and page through the fleet — against the same page drawn the old way, one row per host.
 * Ratios: `paged_over_flat_bytes` and `paged_over_flat_load` (smaller is better).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Diagnostic } from '../src/base/index.js';
import type { FleetMatrix } from '../src/fleet/index.js';
import { buildReport, renderReportPages } from '../src/repo/index.js';
import type { StageRun } from '../src/repo/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/support/capabilities.js';
import type { BenchReport } from './harness.js';
import { rng, timeOnce } from './harness.js';

const HOSTS = 20_000;
const LAYERS = 40;

function fleet(): {
  matrix: FleetMatrix;
  files: Record<string, string>;
  diagnostics: Diagnostic[];
} {
  const random = rng(7);
  const layers = Array.from({ length: LAYERS }, (_, i) => `layer-${String(i).padStart(2, '0')}`);
  const hosts = Array.from(
    { length: HOSTS },
    (_, i) => `host-${String(i).padStart(5, '0')}.example.net`,
  );
  const applies = hosts.map(() => layers.map(() => random() < 0.3));
  const files: Record<string, string> = {};
  for (const [h, host] of hosts.entries())
    files[`fleet/${host}.json`] = JSON.stringify({
      host,
      layers: layers
        .filter((_, l) => applies[h]?.[l])
        .map((name) => ({ name, reasons: ['role=web'] })),
      resources: [
        { ref: 'File[motd]', target: '/etc/motd', layers: ['layer-00'], desired: { mode: '0644' } },
      ],
    });
  const diagnostics: Diagnostic[] = Array.from({ length: 2000 }, (_, i) => ({
    module: 'fleet',
    severity: i % 10 === 0 ? 'error' : 'warning',
    code: 'FLEET_NO_LAYER',
    object: `host ${hosts[i]}`,
    file: `fleet/hosts/${hosts[i]}.yaml`,
    line: 1 + (i % 40),
    message: `host ${hosts[i]} has no layer of its role`,
  }));
  return { matrix: { hosts, layers, applies }, files, diagnostics };
}

/** The old layout: every host a row in the page, no paging. */
function flatPage(matrix: FleetMatrix): string {
  const rows = matrix.hosts
    .map(
      (host, h) =>
        `<tr><th>${host}</th>${matrix.layers.map((_, l) => (matrix.applies[h]?.[l] ? '<td>●</td>' : '<td></td>')).join('')}</tr>`,
    )
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>flat</title></head><body><table id="fleet-matrix"><tbody>${rows}</tbody></table></body></html>`;
}

async function loadTime(file: string, pager: boolean): Promise<number | undefined> {
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS],
    });
  } catch {
    return undefined;
  }
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const times: number[] = [];
    // The flat page takes tens of seconds to lay out; three rounds of each keep the run bounded.
    for (let round = 0; round < 3; round++) {
      const { ms } = await timeOnce(async () => {
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 300_000 });
        if (pager) await page.click('.pager button:last-child');
        await page.evaluate('document.body.getBoundingClientRect().height');
      });
      times.push(ms);
    }
    return times.sort((a, b) => a - b)[1];
  } finally {
    await browser.close();
  }
}

export async function bench(): Promise<BenchReport> {
  const { matrix, files, diagnostics } = fleet();
  const run: StageRun = {
    module: 'fleet',
    input: 'fleet',
    ms: 0,
    result: { diagnostics, outputs: files, counts: { hosts: HOSTS, layers: LAYERS }, data: matrix },
  };
  const report = buildReport('bench', [run], Object.keys(files));
  const render = await timeOnce(() =>
    renderReportPages(report, { fleet: matrix }, { files, version: 'bench' }),
  );
  const html = render.value['report.html'] as string;
  const flat = flatPage(matrix);
  const dir = mkdtempSync(join(tmpdir(), 'labelwise-report-bench-'));
  try {
    writeFileSync(join(dir, 'report.html'), html);
    writeFileSync(join(dir, 'flat.html'), flat);
    const paged = await loadTime(join(dir, 'report.html'), true);
    const flatLoad = await loadTime(join(dir, 'flat.html'), false);
    const ratios: Record<string, number> = { paged_over_flat_bytes: html.length / flat.length };
    if (paged !== undefined && flatLoad !== undefined)
      ratios.paged_over_flat_load = paged / flatLoad;
    return {
      module: 'report',
      results: [
        {
          name: `render report pages, ${HOSTS} hosts × ${LAYERS} layers`,
          ms: render.ms,
          pages: Object.keys(render.value).length,
        },
        { name: 'report.html size', bytes: html.length },
        { name: 'flat page size (one row per host)', bytes: flat.length },
        { name: 'report.html load + next page in Chromium', ms: paged ?? 'chromium not available' },
        { name: 'flat page load in Chromium', ms: flatLoad ?? 'chromium not available' },
      ],
      ratios,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
