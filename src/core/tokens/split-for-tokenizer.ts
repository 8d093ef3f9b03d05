/** The largest piece, in UTF-8 bytes, handed to a BPE encoder at once. */
export const TOKENIZER_CHUNK_BYTES = 2_048;

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/**
 * Cuts `text` into pieces of at most `maxBytes` UTF-8 bytes, preferably just before a whitespace
 * run (where a tokenizer's own pre-split would cut), never inside a surrogate pair. Every
 * tiktoken-style BPE is quadratic on one long unbroken run (64 K dashes take seconds); counting the
 * pieces instead changes the total by about 0.06% (ESTIMATION.md) and bounds the time per piece.
 * Exact counters and the emulators count this way.
 *
 * @example
 * splitForTokenizer('a'.repeat(5000)).length; // 3
 */
export function splitForTokenizer(text: string, maxBytes = TOKENIZER_CHUNK_BYTES): string[] {
  if (text.length * 3 <= maxBytes) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = start;
    let bytes = 0;
    let boundary = -1;
    let space = -1;
    while (end < text.length) {
      const code = text.charCodeAt(end);
      const pair = code >= 0xd800 && code <= 0xdbff && end + 1 < text.length;
      const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
      if (bytes + size > maxBytes) break;
      if (isSpace(code) && end > start) {
        space = end;
        if (!isSpace(text.charCodeAt(end - 1))) boundary = end;
      }
      bytes += size;
      end += pair ? 2 : 1;
    }
    if (end >= text.length) {
      pieces.push(text.slice(start));
      break;
    }
    const cut = boundary > start ? boundary : space > start ? space : Math.max(end, start + 1);
    pieces.push(text.slice(start, cut));
    start = cut;
  }
  return pieces;
}
