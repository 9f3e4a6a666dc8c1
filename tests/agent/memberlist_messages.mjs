// memberlist's UDP messages, built and read by hand for tests that play a member themselves.
// Just enough msgpack, written as Go's codec writes them (raw strings for []byte); written from
// the format, not from the engine, so that the tests check the engine rather than repeat it.
import { expandCompressed } from './compressed.mjs';

export const kPing = 0, kAck = 2, kSuspect = 3, kAlive = 4, kDead = 5, kCompound = 7;

// A string or bytes (a Buffer, for bytes that are not UTF-8) as Go's codec writes them for
// memberlist: fixstr up to 31 bytes, else the old spec's raw 16 (0xda) or raw 32 (0xdb).
export function str(s) {
  const b = Buffer.isBuffer(s) ? s : Buffer.from(s);
  if (b.length <= 31) return Buffer.concat([Buffer.from([0xa0 | b.length]), b]);
  if (b.length <= 0xffff) return Buffer.concat([Buffer.from([0xda, b.length >> 8, b.length & 0xff]), b]);
  const head = Buffer.alloc(5);
  head[0] = 0xdb;
  head.writeUInt32BE(b.length, 1);
  return Buffer.concat([head, b]);
}
export const raw = (bytes) => Buffer.concat([Buffer.from([0xa0 | bytes.length]), Buffer.from(bytes)]);
export function uint(n) {
  if (n < 128) return Buffer.from([n]);
  if (n < 65536) return Buffer.from([0xcd, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = 0xce;
  b.writeUInt32BE(n, 1);
  return b;
}

// {Incarnation, Node, Addr, Port, Meta, Vsn}: a member on 127.0.0.1 at `port`.
export const alive = (name, port, incarnation = 1) => Buffer.concat([Buffer.from([kAlive, 0x86]),
  str('Incarnation'), uint(incarnation), str('Node'), str(name), str('Addr'), raw([127, 0, 0, 1]),
  str('Port'), uint(port), str('Meta'), raw([]), str('Vsn'), raw([1, 5, 2, 0, 0, 0])]);
export const ping = (seq, node) =>
  Buffer.concat([Buffer.from([kPing, 0x82]), str('SeqNo'), uint(seq), str('Node'), str(node)]);
export const ack = (seq) =>
  Buffer.concat([Buffer.from([kAck, 0x82]), str('SeqNo'), uint(seq), str('Payload'), raw([])]);

export function compound(parts) {
  const head = Buffer.alloc(2 + 2 * parts.length);
  head[0] = kCompound;
  head[1] = parts.length;
  parts.forEach((p, i) => head.writeUInt16BE(p.length, 2 + 2 * i));
  return Buffer.concat([head, ...parts]);
}

// The messages of a datagram as an agent sends it: expanded if compressed, a compound's parts.
export function messages(datagram) {
  const m = expandCompressed(datagram);
  if (m[0] !== kCompound) return [m];
  const out = [];
  let at = 2 + 2 * m[1];
  for (let i = 0; i < m[1]; ++i) {
    const length = m.readUInt16BE(2 + 2 * i);
    out.push(...messages(m.subarray(at, at + length)));
    at += length;
  }
  return out;
}

// The SeqNo of a ping or an ack: the unsigned integer after the key.
export function seqNo(message) {
  const key = str('SeqNo');
  const at = message.indexOf(key) + key.length;
  const b = message[at];
  if (b < 0x80) return b;
  if (b === 0xcc) return message[at + 1];
  if (b === 0xcd) return message.readUInt16BE(at + 1);
  if (b === 0xce) return message.readUInt32BE(at + 1);
  throw new Error(`unexpected SeqNo encoding 0x${b.toString(16)}`);
}
