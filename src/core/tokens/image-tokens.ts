/**
 * @module
 * What one image costs in prompt tokens, at the figures the providers document:
 * - OpenAI (GPT-4o, 4.1, 4.5, o1, o3; "Images and vision" guide, "Calculating costs"): `detail: "low"`
 *   is 85 tokens; otherwise the image is scaled to fit 2048 × 2048, then its shortest side to 768 px,
 *   and costs 85 plus 170 per 512-px tile.
 * - Anthropic ("Vision" docs, "Evaluate image size"): about `width × height / 750` tokens, after the
 *   image is scaled so that its long edge is at most 1,568 px and it holds at most ~1.15 megapixels,
 *   so at most about 1,600 tokens.
 * Dimensions come from the header of a base64 image (a data URL, or Anthropic's `source.data`):
 * PNG, JPEG, GIF and WebP. An image whose size cannot be read costs {@link IMAGE_TOKENS}.
 */
import { IMAGE_TOKENS } from './overheads.js';
import { tokenizerFamilyOf } from './tokenizer-family.js';

/** Whose documented image cost applies; `conservative` takes the larger of the two. */
export type ImageCostRule = 'openai' | 'anthropic' | 'conservative';

/**
 * The image rule for a model id: OpenAI's for GPT-4o, 4.1, 4.5, 5 and the o-series (but not
 * `gpt-4o-mini`, which the vision guide prices at 2,833 + 5,667 per tile), Anthropic's for Claude,
 * `conservative` for the rest.
 */
export function imageCostRuleOf(model: string | undefined): ImageCostRule {
  if (model === undefined || /gpt-4o-mini/i.test(model)) return 'conservative';
  const family = tokenizerFamilyOf(model);
  if (family === 'o200k' || family === 'cl100k') return 'openai';
  return family === 'claude_legacy' ? 'anthropic' : 'conservative';
}

/** OpenAI: a low-detail image, and the base of a high-detail one. */
const OPENAI_BASE_TOKENS = 85;
/** OpenAI: each 512-px tile of a high-detail image. */
const OPENAI_TILE_TOKENS = 170;
/** Anthropic: pixels per token. */
const ANTHROPIC_PIXELS_PER_TOKEN = 750;
/** Anthropic: the long edge an image is scaled down to. */
const ANTHROPIC_MAX_EDGE = 1_568;
/** Anthropic: the most pixels an image keeps (1.15 megapixels, about 1,600 tokens). */
const ANTHROPIC_MAX_PIXELS = 1_150_000;
/** Base64 characters decoded to find a JPEG's frame header (EXIF blocks can be tens of KB). */
const HEADER_BASE64_CHARS = 96 * 1024;

/** OpenAI's documented cost of a `width × height` image. */
export function openAIImageTokens(width: number, height: number, detail?: string): number {
  if (detail === 'low') return OPENAI_BASE_TOKENS;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shortest = Math.min(1, 768 / Math.min(w, h));
  w *= shortest;
  h *= shortest;
  return OPENAI_BASE_TOKENS + OPENAI_TILE_TOKENS * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Anthropic's documented cost of a `width × height` image. */
export function anthropicImageTokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const edge = Math.min(1, ANTHROPIC_MAX_EDGE / Math.max(w, h));
  w *= edge;
  h *= edge;
  const area = Math.min(1, Math.sqrt(ANTHROPIC_MAX_PIXELS / (w * h)));
  w *= area;
  h *= area;
  return Math.ceil((w * h) / ANTHROPIC_PIXELS_PER_TOKEN);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** The base64 payload and the `detail` of an image block (OpenAI `image_url`, Anthropic `image`). */
function imageSource(block: unknown): { base64?: string; detail?: string } {
  const value = record(block);
  const imageUrl = record(value?.image_url);
  const url = typeof value?.image_url === 'string' ? value.image_url : imageUrl?.url;
  const detail = typeof imageUrl?.detail === 'string' ? imageUrl.detail : undefined;
  if (typeof url === 'string') {
    const comma = url.startsWith('data:') ? url.indexOf(',') : -1;
    return { ...(comma > 0 ? { base64: url.slice(comma + 1) } : {}), ...(detail ? { detail } : {}) };
  }
  const source = record(value?.source);
  if (source?.type === 'base64' && typeof source.data === 'string') return { base64: source.data };
  return {};
}

const BASE64 = new Int16Array(128).fill(-1);
for (const [index, char] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries())
  BASE64[char.charCodeAt(0)] = index;
BASE64['-'.charCodeAt(0)] = 62;
BASE64['_'.charCodeAt(0)] = 63;

/** Decodes the first `maxChars` characters of base64 text (whitespace skipped). */
function decodeBase64Prefix(text: string, maxChars: number): Uint8Array {
  const bytes = new Uint8Array(Math.ceil((Math.min(text.length, maxChars) * 3) / 4));
  let length = 0;
  let buffer = 0;
  let bits = 0;
  for (let index = 0; index < text.length && index < maxChars; index++) {
    const code = text.charCodeAt(index);
    const value = code < 128 ? (BASE64[code] as number) : -1;
    if (value < 0) {
      if (code === 0x3d) break;
      continue;
    }
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[length++] = (buffer >> bits) & 0xff;
    }
  }
  return bytes.subarray(0, length);
}

/** Width and height from a PNG, GIF, WebP or JPEG header, when the bytes hold one. */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  const at = (index: number) => bytes[index] ?? 0;
  const u16be = (index: number) => (at(index) << 8) | at(index + 1);
  const u16le = (index: number) => at(index) | (at(index + 1) << 8);
  const u32be = (index: number) => ((at(index) << 24) >>> 0) + (at(index + 1) << 16) + u16be(index + 2);
  const ascii = (index: number, length: number) =>
    String.fromCharCode(...bytes.subarray(index, index + length));
  let size: { width: number; height: number } | undefined;
  if (ascii(1, 3) === 'PNG' && ascii(12, 4) === 'IHDR') size = { width: u32be(16), height: u32be(20) };
  else if (ascii(0, 4) === 'GIF8') size = { width: u16le(6), height: u16le(8) };
  else if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') size = webpDimensions(bytes, ascii, u16le);
  else if (at(0) === 0xff && at(1) === 0xd8) size = jpegDimensions(bytes, u16be);
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}

function webpDimensions(
  bytes: Uint8Array,
  ascii: (index: number, length: number) => string,
  u16le: (index: number) => number,
): { width: number; height: number } | undefined {
  const chunk = ascii(12, 4);
  const at = (index: number) => bytes[index] ?? 0;
  if (chunk === 'VP8X')
    return {
      width: 1 + (at(24) | (at(25) << 8) | (at(26) << 16)),
      height: 1 + (at(27) | (at(28) << 8) | (at(29) << 16)),
    };
  if (chunk === 'VP8L') {
    const bits = at(21) | (at(22) << 8) | (at(23) << 16) | (at(24) << 24);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ') return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
  return undefined;
}

function jpegDimensions(
  bytes: Uint8Array,
  u16be: (index: number) => number,
): { width: number; height: number } | undefined {
  let index = 2;
  while (index + 9 < bytes.length) {
    if (bytes[index] !== 0xff) return undefined;
    const marker = bytes[index + 1] as number;
    // SOF0–SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) are not frames.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { width: u16be(index + 7), height: u16be(index + 5) };
    index += 2 + u16be(index + 2);
  }
  return undefined;
}

/**
 * The prompt tokens of one image block under `rule`: the documented cost of its size when its header
 * can be read, {@link IMAGE_TOKENS} otherwise (OpenAI `detail: "low"` is 85 whatever the size).
 *
 * @example
 * imageTokens({ type: 'image_url', image_url: { url: 'data:image/png;base64,…', detail: 'low' } }, 'openai'); // 85
 */
export function imageTokens(block: unknown, rule: ImageCostRule = 'conservative'): number {
  const { base64, detail } = imageSource(block);
  if (rule === 'openai' && detail === 'low') return OPENAI_BASE_TOKENS;
  const size =
    base64 === undefined ? undefined : imageDimensions(decodeBase64Prefix(base64, HEADER_BASE64_CHARS));
  if (size === undefined) return IMAGE_TOKENS;
  const openai = openAIImageTokens(size.width, size.height, detail);
  const anthropic = anthropicImageTokens(size.width, size.height);
  if (rule === 'openai') return openai;
  if (rule === 'anthropic') return anthropic;
  return Math.max(openai, anthropic);
}
