import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { buildReport, renderReportHtml, renderReportPages } from '../../src/repo/index.js';
import type { StageRun } from '../../src/repo/index.js';
import type { AnchorClaims } from '../../src/anchor/index.js';
import type { FleetMatrix } from '../../src/fleet/index.js';
import { CHROMIUM, CHROMIUM_ARGS, skipWithout } from '../support/capabilities.js';
import { pageName } from '../../src/repo/report/html.js';

const fleetData: FleetMatrix = {
  hosts: ['web-001', 'db-001'],
  layers: ['base', 'role-web'],
  applies: [
    [true, true],
    [true, false],
  ],
};

const anchorData: AnchorClaims = {
  projects: [
    {
      project: 'ix-authentik',
      files: ['compose/compose.yaml'],
      anchors: [
        {
          anchor: 'anchord-ldap',
          scope: 'anchord.role=ldap',
          backends: [
            {
              backend: 'ldap-outpost',
              entries: [
                {
                  family: 'ipv4',
                  proto: 'tcp',
                  port: 389,
                  backend: 'ldap-outpost',
                  backendPort: 3389,
                },
              ],
            },
          ],
        },
        { anchor: 'anchord-proxy', scope: 'anchord.role=proxy', backends: [] },
      ],
    },
  ],
};

const runs: StageRun[] = [
  {
    module: 'fleet',
    input: 'fleet',
    ms: 1,
    result: {
      diagnostics: [
        {
          module: 'fleet',
          severity: 'error',
          code: 'FLEET_INVALID_DOCUMENT',
          object: 'File[<script>alert(1)</script>]',
          file: 'fleet/hosts/web.yaml',
          line: 7,
          message: 'mode "<b>0777</b>" & more',
        },
      ],
      outputs: {},
      counts: { hosts: 2, layers: 2 },
      data: fleetData,
    },
  },
  {
    module: 'anchor',
    input: 'compose',
    ms: 1,
    result: {
      diagnostics: [
        {
          module: 'anchor',
          severity: 'warning',
          code: 'ANCHOR_UNCLAIMED_BACKEND',
          message: 'backend c is not claimed',
        },
      ],
      outputs: {},
      counts: { anchors: 1 },
      data: anchorData,
    },
  },
];

/** The same diagnostic twice: the report shows it once with a count of 2. */
const repeated: StageRun = {
  module: 'policy',
  input: 'policy',
  ms: 1,
  result: {
    diagnostics: [1, 2].map((n) => ({
      module: 'policy',
      severity: 'warning' as const,
      code: 'POLICY_PROBE_NOT_ROUTED',
      object: 'Pod a',
      file: `policy/p${n}.yaml`,
      line: n,
      message: 'probe will fail',
    })),
    outputs: {},
    counts: {},
  },
};

test('report.html escapes hostile text and lists every section', () => {
  const html = renderReportHtml(
    buildReport('repo', [...runs, repeated], []),
    {
      fleet: fleetData,
      anchor: anchorData,
    },
    { version: '9.9.9', revision: 'abc123', linkBase: '../repo/' },
  );
  assert.ok(!html.includes('<script>alert'), 'no markup from diagnostics reaches the page');
  assert.ok(html.includes('&#60;script&#62;'));
  assert.ok(!/(src|href)=["']?https?:/.test(html), 'no external assets');
  assert.match(
    html,
    /Content-Security-Policy" content="default-src 'none';[^"]*script-src 'sha256-/,
  );
  for (const id of ['summary', 'diagnostics', 'fleet-matrix', 'anchor-claims', 'verdict', 'search'])
    assert.ok(html.includes(`id="${id}"`), id);
  assert.match(html, /labelwise 9\.9\.9, revision <code>abc123<\/code>/);
  assert.match(html, /href="\.\.\/repo\/fleet\/hosts\/web\.yaml#L7"/);
  assert.match(html, /<span class="count">2<\/span>/);
});

test('a large fleet is paged: the page stays small and every host has a page of its own', () => {
  const hosts = Array.from({ length: 2500 }, (_, i) => `host-${String(i).padStart(5, '0')}`);
  const matrix: FleetMatrix = {
    hosts,
    layers: ['base', 'web'],
    applies: hosts.map((_, i) => [true, i % 2 === 0]),
  };
  const files = Object.fromEntries(
    hosts.map((host) => [
      `fleet/${host}.json`,
      JSON.stringify({ host, layers: [{ name: 'base', reasons: ['every host'] }], resources: [] }),
    ]),
  );
  const fleetRun: StageRun = {
    ...(runs[0] as StageRun),
    result: { ...(runs[0] as StageRun).result, data: matrix },
  };
  const pages = renderReportPages(
    buildReport('repo', [fleetRun], []),
    { fleet: matrix },
    { files },
  );
  const html = pages['report.html'] as string;
  assert.equal(
    (html.match(/<th scope="row">/g) ?? []).length,
    100,
    'only the first page is rendered as rows',
  );
  assert.match(html, /id="data-fleet"/);
  assert.equal(Object.keys(pages).filter((p) => p.startsWith('hosts/')).length, 2500);
  assert.match(pages['hosts/host-00000.html'] ?? '', /Layers that reach host-00000/);
});

test('report.html renders in headless Chromium at desktop and phone widths, loading nothing external', async (t) => {
  if (skipWithout(t, 'chromium')) return;
  const dir = await mkdtemp(join(tmpdir(), 'labelwise-report-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
  try {
    const file = join(dir, 'report.html');
    await writeFile(
      file,
      renderReportHtml(buildReport('repo', [...runs, repeated], []), {
        fleet: fleetData,
        anchor: anchorData,
      }),
    );
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      const requests: string[] = [];
      const dialogs: string[] = [];
      const errors: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      page.on('dialog', (d) => void dialogs.push(d.message()));
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(pathToFileURL(file).href);
      assert.deepEqual(requests, [pathToFileURL(file).href], 'the page loads nothing but itself');
      assert.equal(await page.title(), 'labelwise build report: repo');
      assert.match(
        (await page.textContent('#verdict')) ?? '',
        /Build failed: 1 error\(s\), 3 warning\(s\)/,
      );
      assert.equal(await page.locator('#summary tbody tr').count(), 3);
      assert.equal(
        await page.locator('#diagnostics tbody tr').count(),
        3,
        'two identical diagnostics are one row',
      );
      assert.match(
        (await page.textContent('#diagnostics')) ?? '',
        /File\[<script>alert\(1\)<\/script>\]/,
      );
      assert.equal(await page.locator('#fleet-matrix tbody tr').count(), 2);
      assert.equal(await page.locator('#fleet-matrix td.yes').count(), 3);
      assert.match(
        (await page.textContent('#anchor-claims')) ?? '',
        /anchord-ldap.*anchord\.role=ldap.*ldap-outpost.*tcp\/389.*3389/s,
      );
      // The filters work: errors only, then a search.
      await page.selectOption('#filter-severity', 'error');
      assert.equal(await page.locator('#diagnostics tbody tr:not([hidden])').count(), 1);
      await page.selectOption('#filter-severity', '');
      await page.fill('#search', 'probe');
      assert.equal(await page.locator('#diagnostics tbody tr:not([hidden])').count(), 1);
      const overflow = Number(
        await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
      );
      assert.ok(
        overflow <= 1,
        `no sideways scrolling of the page at ${width}px (tables scroll on their own)`,
      );
      assert.deepEqual(dialogs, [], 'no script from the input ran');
      assert.deepEqual(errors, []);
      await page.close();
    }
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('the fleet pager in Chromium: pages, searches and links each host to its page', async (t) => {
  if (skipWithout(t, 'chromium')) return;
  const hosts = Array.from({ length: 250 }, (_, i) => `host-${String(i).padStart(3, '0')}`);
  hosts.push('odd/host name');
  // Every third host has the base layer: the pager must draw exactly those cells as set.
  const matrix: FleetMatrix = {
    hosts,
    layers: ['base'],
    applies: hosts.map((_, i) => [i % 3 === 0]),
  };
  const dir = await mkdtemp(join(tmpdir(), 'labelwise-pager-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
  try {
    const file = join(dir, 'report.html');
    await writeFile(file, renderReportHtml(buildReport('repo', [], []), { fleet: matrix }));
    const page = await browser.newPage();
    await page.goto(pathToFileURL(file).href);
    const rows = page.locator('#fleet-matrix tbody tr');
    assert.equal(await rows.count(), 100);
    await page.click('.pager button:last-child');
    assert.equal(await rows.first().locator('th').textContent(), 'host-100');
    assert.equal(await rows.first().locator('a').getAttribute('href'), 'hosts/host-100.html');
    assert.equal(
      await page.locator('#fleet-matrix td.yes').count(),
      33,
      'hosts 102, 105, … 198 on page two',
    );
    assert.equal(await rows.nth(2).locator('td.yes').count(), 1, 'host-102 has the layer');
    await page.fill('#search', 'odd');
    assert.equal(await rows.count(), 1);
    assert.equal(
      await rows.first().locator('a').getAttribute('href'),
      `hosts/${pageName('odd/host name')}.html`,
    );
  } finally {
    await browser.close();
    await rm(dir, { recursive: true, force: true });
  }
});
