// Reads memberlist's compress message (type 9: {Algo: 0, Buf: LZW bytes}) as agents send it, so a
// test that looks inside a reply can see through compression. Written from the format, not from
// the engine, so that it checks the engine rather than repeats it.
import { str } from './memberlist_messages.mjs';

const kCompress = 9;

// A msgpack raw (str) header as memberlist's codec writes it: fixstr, raw16 or raw32.
function readRaw(buf, at) {
  const b = buf[at];
  if ((b & 0xe0) === 0xa0) return { start: at + 1, length: b & 0x1f };
  if (b === 0xda) return { start: at + 3, length: buf.readUInt16BE(at + 1) };
  if (b === 0xdb) return { start: at + 5, length: buf.readUInt32BE(at + 1) };
  throw new Error(`compress message: expected a raw field at byte ${at}, found 0x${b.toString(16)}`);
}

// Go's compress/lzw, LSB order, 8-bit literals: clear 256, end 257, codes 9 to 12 bits wide.
export function lzwDecode(input) {
  const out = [];
  let bits = 0;
  let nbits = 0;
  let pos = 0;
  let width = 9;
  let hi = 257;
  let last = -1;
  let table = [];
  const entry = (code) => (code < 256 ? [code] : table[code]);
  for (;;) {
    while (nbits < width) {
      if (pos >= input.length) throw new Error('lzw: the stream ends without an end code');
      bits |= input[pos++] << nbits;
      nbits += 8;
    }
    const code = bits & ((1 << width) - 1);
    bits >>>= width;
    nbits -= width;
    if (code === 256) { width = 9; hi = 257; last = -1; table = []; continue; }
    if (code === 257) return Buffer.from(out);
    let bytes;
    if (code < 256 || code < hi) bytes = entry(code);
    else if (code === hi && last >= 0) bytes = [...entry(last), entry(last)[0]];
    else throw new Error(`lzw: invalid code ${code}`);
    out.push(...bytes);
    if (last >= 0) table[hi] = [...entry(last), bytes[0]];
    last = code;
    if (++hi >= 1 << width) {
      if (width < 12) ++width;
      else { --hi; last = -1; }
    }
  }
}

// The message itself if it is not compressed, or what it expands to.
export function expandCompressed(message) {
  if (message[0] !== kCompress) return message;
  if (message[1] !== 0x82) throw new Error('compress message: expected a map of two fields');
  let at = 2;
  let buf = null;
  for (let i = 0; i < 2; ++i) {
    const key = readRaw(message, at);
    const name = message.subarray(key.start, key.start + key.length).toString();
    at = key.start + key.length;
    if (name === 'Algo') {
      if (message[at] !== 0) throw new Error(`compress message: unknown algorithm ${message[at]}`);
      at += 1;
    } else if (name === 'Buf') {
      const value = readRaw(message, at);
      buf = message.subarray(value.start, value.start + value.length);
      at = value.start + value.length;
    } else {
      throw new Error(`compress message: unexpected field ${name}`);
    }
  }
  if (!buf) throw new Error('compress message: no Buf field');
  return lzwDecode(buf);
}

// Go's compress/lzw writer, LSB order, 8-bit literals, for tests that send compressed messages:
// codes start 9 bits wide, the table grows to 12 bits, and at code 4095 the writer emits a clear
// code and starts over (no clear code first, as Go's writer).
export function lzwEncode(input) {
  const out = [];
  let bits = 0;
  let nbits = 0;
  let width = 9;
  let hi = 257;
  let overflow = 512;
  let table = new Map();
  const write = (code) => {
    bits |= code << nbits;
    nbits += width;
    while (nbits >= 8) {
      out.push(bits & 0xff);
      bits >>>= 8;
      nbits -= 8;
    }
  };
  // Returns false when the table ran out and was cleared.
  const incHi = () => {
    if (++hi === overflow) { ++width; overflow <<= 1; }
    if (hi === 4095) {
      write(256);
      width = 9; hi = 257; overflow = 512; table = new Map();
      return false;
    }
    return true;
  };
  let code = -1;
  for (const literal of input) {
    if (code < 0) { code = literal; continue; }
    const key = code * 256 + literal;
    const known = table.get(key);
    if (known !== undefined) { code = known; continue; }
    write(code);
    code = literal;
    if (incHi()) table.set(key, hi);
  }
  if (code >= 0) { write(code); incHi(); }
  write(257);
  if (nbits > 0) out.push(bits & 0xff);
  return Buffer.from(out);
}

// memberlist's compress message around `message`: [9]{Algo: 0, Buf: LZW(message)}, raw fields as
// Go's codec writes them (fixstr, raw 16, raw 32).
export function compressMessage(message) {
  return Buffer.concat([Buffer.from([kCompress, 0x82]), str('Algo'), Buffer.from([0]), str('Buf'),
                        str(lzwEncode(message))]);
}
