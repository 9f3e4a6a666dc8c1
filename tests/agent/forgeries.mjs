// What a stranger who can send UDP and open TCP connections to an agent can forge without gossip
// encryption (memberlist's default): accusations and alive messages at any incarnation, metadata,
// user messages, compressed bombs and full states declaring members that do not exist. Written
// from memberlist's format (Go's codec: raw strings for []byte), not from the engine.
import { compressMessage } from './compressed.mjs';
import { kAlive, kDead, kSuspect, raw, str, uint } from './memberlist_messages.mjs';

export const kTopIncarnation = 4294967295;  // 2^32 - 1: memberlist's incarnations are uint32
const kUser = 8, kPushPull = 6;

// {Incarnation, Node, From}: suspect (type 3) or dead (type 5); From == Node means "left".
const accusation = (type) => (node, incarnation, from) => Buffer.concat([Buffer.from([type, 0x83]),
  str('Incarnation'), uint(incarnation), str('Node'), str(node), str('From'), str(from)]);
export const suspect = accusation(kSuspect);
export const dead = accusation(kDead);

// Serf's tags as node metadata: 0xFF, then a msgpack map of strings.
export function serfTags(tags) {
  const entries = Object.entries(tags);
  return Buffer.concat([Buffer.from([0xff, 0x80 | entries.length]),
                        ...entries.flatMap(([k, v]) => [str(k), str(v)])]);
}

// An alive for `name` at 127.0.0.1:`port` with metadata `meta`.
export const aliveWithMeta = (name, port, incarnation, meta) => Buffer.concat([Buffer.from([kAlive, 0x86]),
  str('Incarnation'), uint(incarnation), str('Node'), str(name), str('Addr'), raw([127, 0, 0, 1]),
  str('Port'), uint(port), str('Meta'), str(Buffer.from(meta)), str('Vsn'), raw([1, 5, 2, 2, 5, 5])]);

// A user message (type 8: Serf's events and queries): the type byte, then opaque bytes.
export const userMessage = (payload) => Buffer.concat([Buffer.from([kUser]), payload]);

// A full-state exchange (type 6): {Nodes, UserStateLen, Join}, one map per member
// {Name, Addr, Port, Meta, Incarnation, State, Vsn}, then the user state. `members` are
// {name, port, incarnation?, state?} on 127.0.0.1 (state 0 alive, 1 suspect, 2 dead, 3 left).
export function pushPull(members, userState = Buffer.alloc(0), join = false) {
  const parts = [Buffer.from([kPushPull, 0x83]), str('Nodes'), uint(members.length),
                 str('UserStateLen'), uint(userState.length), str('Join'), Buffer.from([join ? 0xc3 : 0xc2])];
  for (const m of members) {
    parts.push(Buffer.from([0x87]), str('Name'), str(m.name), str('Addr'), raw([127, 0, 0, 1]),
               str('Port'), uint(m.port), str('Meta'), raw([]), str('Incarnation'), uint(m.incarnation ?? 1),
               str('State'), uint(m.state ?? 0), str('Vsn'), raw([1, 5, 2, 2, 5, 5]));
  }
  parts.push(userState);
  return Buffer.concat(parts);
}

export { compressMessage };
