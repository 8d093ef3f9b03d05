/**
 * The demo's HTML report rendered in headless Chromium (Debian's `chromium`, driven by
 * playwright-core) for every emulator profile: the chart is laid out at its size, its bars and
 * limit lines are painted in their colors, no two of its text labels overlap as the browser lays
 * them out (each label also stays inside the box the layout pass reserved for it), and the page
 * asks for nothing over the network. Skipped only where Chromium is not installed (`.ci/run`
 * installs it). With SPILLWAY_REPORT_SHOTS=DIR the screenshots are kept there.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_COLORS, demoVerdict, renderDemoHtml, runDemo } from '../../src/demo/index.js';
import { PROFILE_NAMES } from '../../src/emulator/index.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available)
  console.warn(`demo report rendering test skipped: no Chromium at ${CHROMIUM} (.ci/run installs it)`);

/** Decodes an 8-bit RGB or RGBA PNG (what Chromium screenshots are) into RGBA pixels. */
function decodePng(png: Buffer): { width: number; height: number; pixels: Uint8Array } {
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 4;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || (body[9] !== 2 && body[9] !== 6)) throw new Error('unexpected PNG format');
      channels = body[9] === 6 ? 4 : 3;
    } else if (type === 'IDAT') data.push(body);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const rows = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x] as number;
      const left = x >= channels ? (rows[y * stride + x - channels] as number) : 0;
      const up = y > 0 ? (rows[(y - 1) * stride + x] as number) : 0;
      const upLeft = y > 0 && x >= channels ? (rows[(y - 1) * stride + x - channels] as number) : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [a, b, c] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        predicted = a <= b && a <= c ? left : b <= c ? up : upLeft;
      }
      rows[y * stride + x] = (value + predicted) & 0xff;
    }
  }
  const pixels = new Uint8Array(width * height * 4);
  for (let index = 0; index < width * height; index++) {
    for (let channel = 0; channel < 3; channel++)
      pixels[index * 4 + channel] = rows[index * channels + channel] as number;
    pixels[index * 4 + 3] = channels === 4 ? (rows[index * channels + 3] as number) : 255;
  }
  return { width, height, pixels };
}

/** How many pixels are within `tolerance` of a `#rrggbb` color. */
function countColor(image: { pixels: Uint8Array }, hex: string, tolerance = 40): number {
  const target = [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16));
  let found = 0;
  for (let index = 0; index < image.pixels.length; index += 4) {
    const distance = target.reduce(
      (sum, value, channel) => sum + Math.abs((image.pixels[index + channel] as number) - value),
      0,
    );
    if (distance <= tolerance) found++;
  }
  return found;
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The little of the browser's DOM the measurement uses (the test is compiled without the DOM library). */
interface PageElement {
  getBoundingClientRect(): Rect;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  textContent: string | null;
  nextElementSibling: PageElement | null;
}

/** Every text of the chart as Chromium laid it out, and the backing box the layout reserved for each label. */
function measureChart(page: Page): Promise<{
  chart: Rect;
  texts: Array<Rect & { text: string }>;
  labels: Array<{ text: Rect; backing: Rect }>;
}> {
  return page.evaluate(() => {
    const rect = (element: PageElement) => {
      const box = element.getBoundingClientRect();
      return { x: box.x, y: box.y, width: box.width, height: box.height };
    };
    const page = globalThis as unknown as { document: { querySelector(selector: string): PageElement } };
    const svg = page.document.querySelector('svg#chart');
    const texts = Array.from(svg.querySelectorAll('text')).map((text) => ({
      text: text.textContent ?? '',
      ...rect(text),
    }));
    const labels = Array.from(svg.querySelectorAll('rect.label-backing')).map((backing) => ({
      backing: rect(backing),
      text: rect(backing.nextElementSibling as PageElement),
    }));
    return { chart: rect(svg), texts, labels };
  });
}

const intersect = (left: Rect, right: Rect): boolean =>
  left.x < right.x + right.width &&
  right.x < left.x + left.width &&
  left.y < right.y + right.height &&
  right.y < left.y + left.height;

const within = (inner: Rect, outer: Rect, slack = 0.5): boolean =>
  inner.x >= outer.x - slack &&
  inner.y >= outer.y - slack &&
  inner.x + inner.width <= outer.x + outer.width + slack &&
  inner.y + inner.height <= outer.y + outer.height + slack;

describe.skipIf(!available)(
  `the demo report in headless Chromium${available ? '' : ` (skipped: no Chromium at ${CHROMIUM})`}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'spillway-report-'));
    const shots = process.env.SPILLWAY_REPORT_SHOTS;
    let context: BrowserContext;
    beforeAll(async () => {
      if (shots) mkdirSync(shots, { recursive: true });
      context = await chromium.launchPersistentContext(join(dir, 'profile'), {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        viewport: { width: 1_100, height: 900 },
      });
    });
    afterAll(async () => {
      await context?.close();
    });

    // Every profile at the default length, and crowded charts: a short session, long ones.
    const cases = [
      ...PROFILE_NAMES.map((profile) => ({ profile, turns: 30 })),
      { profile: 'litellm-vllm' as const, turns: 9 },
      { profile: 'ollama' as const, turns: 60 },
      { profile: 'vllm' as const, turns: 60 },
    ];
    it.each(cases)(
      'renders $profile at $turns turns: every request a bar, no two labels overlapping, offline',
      async ({ profile, turns }) => {
        const result = await runDemo({ profile, turns });
        const verdict = demoVerdict(result);
        const file = join(dir, `${profile}-${turns}.html`);
        writeFileSync(file, renderDemoHtml(result, verdict));
        const page = await context.newPage();
        try {
          const requests: string[] = [];
          page.on('request', (request) => requests.push(request.url()));
          await page.goto(pathToFileURL(file).href);
          const chart = page.locator('svg#chart');
          const box = await chart.boundingBox();
          expect(box?.width).toBeGreaterThan(800);
          expect(box?.height).toBeGreaterThan(500);
          const measured = await measureChart(page);
          expect(measured.texts.length).toBeGreaterThan(20);
          for (const [index, text] of measured.texts.entries()) {
            expect(within(text, measured.chart), `"${text.text}" inside the chart`).toBe(true);
            for (const other of measured.texts.slice(index + 1))
              expect(intersect(text, other), `"${text.text}" and "${other.text}" overlap`).toBe(false);
          }
          // The layout pass worked on estimated boxes: the browser's text stays inside each of them.
          expect(measured.labels.length).toBeGreaterThanOrEqual(2);
          for (const label of measured.labels) expect(within(label.text, label.backing)).toBe(true);
          const { plain, spillway } = result.runs;
          const requestCount = plain.requests.length + spillway.requests.length;
          expect(await page.locator('svg#chart rect.prompt, svg#chart rect.rejected').count()).toBe(
            requestCount,
          );
          expect(await page.locator('svg#chart .failure').count()).toBe(
            [...plain.requests, ...spillway.requests].filter((request) => !request.accepted).length,
          );
          expect(await page.locator('svg#chart rect.dropped').count()).toBe(
            verdict.plain.truncatedRequests + verdict.spillway.truncatedRequests,
          );
          expect(await page.locator('svg#chart .prune, svg#chart .compaction').count()).toBe(
            verdict.plain.cuts + verdict.spillway.cuts,
          );
          const screenshot = await chart.screenshot({ type: 'png' });
          if (shots) writeFileSync(join(shots, `${profile}-${turns}.png`), screenshot);
          const image = decodePng(screenshot);
          expect(countColor(image, CHART_COLORS.spillway)).toBeGreaterThan(500);
          expect(countColor(image, CHART_COLORS.realWindow)).toBeGreaterThan(300);
          if (plain.requests.some((request) => request.accepted && request.keptTokens === undefined))
            expect(countColor(image, CHART_COLORS.plain)).toBeGreaterThan(200);
          if (result.advertised.contextLength !== result.realWindow)
            expect(countColor(image, CHART_COLORS.advertised)).toBeGreaterThan(200);
          expect(requests).toEqual([pathToFileURL(file).href]);
        } finally {
          await page.close();
        }
      },
      60_000,
    );
  },
);
