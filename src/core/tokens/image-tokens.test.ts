import { describe, expect, it } from 'vitest';
import {
  anthropicImageTokens,
  imageCostRuleOf,
  imageDimensions,
  imageTokens,
  openAIImageTokens,
} from './image-tokens.js';
import { IMAGE_TOKENS } from './overheads.js';

function base64(bytes: number[]): string {
  return btoa(String.fromCharCode(...bytes));
}

const u32 = (value: number) => [(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
const u16le = (value: number) => [value & 255, (value >>> 8) & 255];

function png(width: number, height: number): number[] {
  return [
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    0,
    0,
    0,
    13,
    0x49,
    0x48,
    0x44,
    0x52,
    ...u32(width),
    ...u32(height),
    8,
    6,
    0,
    0,
    0,
  ];
}

function jpeg(width: number, height: number): number[] {
  // SOI, an APP0 segment of 16 bytes, then SOF0 with the frame size.
  const app0 = [0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const sof0 = [
    0xff,
    0xc0,
    0,
    17,
    8,
    (height >>> 8) & 255,
    height & 255,
    (width >>> 8) & 255,
    width & 255,
    3,
  ];
  return [0xff, 0xd8, ...app0, ...sof0, ...new Array(12).fill(0)];
}

function gif(width: number, height: number): number[] {
  return [...'GIF89a'].map((char) => char.charCodeAt(0)).concat(u16le(width), u16le(height), 0, 0, 0);
}

function webp(width: number, height: number): number[] {
  const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));
  const w = width - 1;
  const h = height - 1;
  return [
    ...ascii('RIFF'),
    0,
    0,
    0,
    0,
    ...ascii('WEBPVP8X'),
    10,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    w & 255,
    (w >>> 8) & 255,
    (w >>> 16) & 255,
    h & 255,
    (h >>> 8) & 255,
    (h >>> 16) & 255,
  ];
}

describe('imageDimensions', () => {
  it.each([
    ['PNG', png],
    ['JPEG', jpeg],
    ['GIF', gif],
    ['WebP', webp],
  ])('reads width and height from a %s header', (_name, make) => {
    expect(imageDimensions(Uint8Array.from(make(1024, 768)))).toEqual({ width: 1024, height: 768 });
  });

  it('reads nothing from bytes that are no image', () => {
    expect(
      imageDimensions(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])),
    ).toBeUndefined();
  });
});

describe('documented image costs', () => {
  it('follows OpenAI’s tile arithmetic: 85 for low detail, 85 + 170 per 512-px tile after scaling', () => {
    expect(openAIImageTokens(1024, 1024, 'low')).toBe(85);
    // The vision guide's examples: 1024 × 1024 → 768 × 768, 4 tiles; 2048 × 4096 → 768 × 1536, 6 tiles.
    expect(openAIImageTokens(1024, 1024)).toBe(765);
    expect(openAIImageTokens(2048, 4096)).toBe(1_105);
    expect(openAIImageTokens(512, 512)).toBe(255);
  });

  it('follows Anthropic’s width × height / 750, at most about 1,600 tokens', () => {
    expect(anthropicImageTokens(1000, 1000)).toBe(1_334);
    expect(anthropicImageTokens(200, 200)).toBe(54);
    expect(anthropicImageTokens(8000, 8000)).toBeLessThanOrEqual(1_600);
    expect(anthropicImageTokens(8000, 8000)).toBeGreaterThan(1_500);
  });

  it('prices an image block by the rule of the API that will read it', () => {
    const openAIBlock = {
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${base64(png(1024, 1024))}` },
    };
    const anthropicBlock = {
      type: 'image',
      source: { type: 'base64', media_type: 'image/jpeg', data: base64(jpeg(1000, 1000)) },
    };
    expect(imageTokens(openAIBlock, 'openai')).toBe(765);
    expect(imageTokens(anthropicBlock, 'anthropic')).toBe(1_334);
    expect(imageTokens(openAIBlock, 'conservative')).toBe(Math.max(765, anthropicImageTokens(1024, 1024)));
    expect(
      imageTokens(
        { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
        'openai',
      ),
    ).toBe(85);
  });

  it('counts an image whose size it cannot read at the conservative figure', () => {
    expect(
      imageTokens({ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }, 'openai'),
    ).toBe(IMAGE_TOKENS);
    expect(imageTokens({ type: 'image', source: { type: 'base64', data: 'not an image' } })).toBe(
      IMAGE_TOKENS,
    );
    expect(imageTokens(null)).toBe(IMAGE_TOKENS);
  });

  it('picks the rule from the model id', () => {
    expect(imageCostRuleOf('gpt-4o')).toBe('openai');
    expect(imageCostRuleOf('gpt-4o-mini')).toBe('conservative');
    expect(imageCostRuleOf('claude-sonnet-4-5')).toBe('anthropic');
    expect(imageCostRuleOf('Qwen/Qwen2.5-VL-7B-Instruct')).toBe('conservative');
  });
});
