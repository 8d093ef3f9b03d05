/**
 * The demo's HTML report rendered in headless Chromium (Debian's `chromium`, driven by
 * playwright-core): the chart is laid out at its size, its series and limit lines are painted in
 * their colors, and the page asks for nothing over the network. Skipped only where Chromium is not
 * installed (`.ci/run` installs it).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHART_COLORS, renderDemoHtml, runDemo } from '../../src/demo/index.js';

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

describe('the demo report in headless Chromium', () => {
  it.skipIf(!available)(
    `renders the chart with both runs and the window lines, offline${available ? '' : ` (skipped: no Chromium at ${CHROMIUM})`}`,
    async () => {
      // Long enough that the Spillway run prunes (old tool results are compressed first).
      const result = await runDemo({ turns: 20 });
      const dir = mkdtempSync(join(tmpdir(), 'spillway-report-'));
      const file = join(dir, 'demo.html');
      writeFileSync(file, renderDemoHtml(result));
      const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
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
      try {
        const page = await context.newPage();
        const requests: string[] = [];
        page.on('request', (request) => requests.push(request.url()));
        await page.goto(pathToFileURL(file).href);
        const chart = page.locator('svg#chart');
        const box = await chart.boundingBox();
        expect(box?.width).toBeGreaterThan(800);
        expect(box?.height).toBeGreaterThan(300);
        const image = decodePng(await chart.screenshot({ type: 'png' }));
        expect(image.width).toBeGreaterThan(800);
        // Each series and limit line is drawn: hundreds of pixels in its color.
        expect(countColor(image, CHART_COLORS.spillway)).toBeGreaterThan(500);
        expect(countColor(image, CHART_COLORS.plain)).toBeGreaterThan(200);
        expect(countColor(image, CHART_COLORS.realWindow)).toBeGreaterThan(300);
        expect(countColor(image, CHART_COLORS.advertised)).toBeGreaterThan(200);
        expect(await page.locator('svg#chart .failure').count()).toBeGreaterThanOrEqual(1);
        expect(await page.locator('svg#chart .prune').count()).toBeGreaterThanOrEqual(1);
        expect(requests).toEqual([pathToFileURL(file).href]);
      } finally {
        await context.close();
      }
    },
  );
});
