// The installed library as an outside project uses it: `cmake --install` to a fresh prefix,
// examples/embed configured and built from outside the tree with find_package(vigil), two of its
// members on loopback that must see each other join and one leave, and a small program compiled
// with nothing but `pkg-config --cflags --libs vigil-swim`.
//
//   node tests/library/embed.test.mjs --build build --source . [--cxx c++] [--launcher ccache]
//                                     [--work DIR] [--sanitize FLAGS]
// --sanitize passes the sanitizer flags the libraries were built with (a sanitized build's
// libraries need its runtime) to every compile and link of the outside project.
// --work names a fixed scratch folder (emptied first, removed after a pass): with the same paths
// on every run, a compiler launcher such as ccache finds the example's objects again.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { check, freePort, waitFor } from '../agent/harness.mjs';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.build || !args.source) {
  throw new Error('usage: embed.test.mjs --build DIR --source DIR [--cxx C++] [--launcher L] [--work DIR]');
}
const cxx = args.cxx || 'c++';
// A CMake list, as CMAKE_CXX_COMPILER_LAUNCHER holds it: the program, then its own arguments.
const launcher = (args.launcher || '').split(';').filter(Boolean);
const sanitize = (args.sanitize || '').split(/\s+/).filter(Boolean);

let tmp = mkdtempSync(path.join(os.tmpdir(), 'vigil-library-'));
if (args.work) {
  rmSync(tmp, { recursive: true, force: true });
  tmp = path.resolve(args.work);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
}
const prefix = path.join(tmp, 'prefix');
const children = [];
let passed = false;
process.on('exit', () => {
  for (const c of children) if (c.alive) c.child.kill('SIGKILL');
  if (passed || !args.work) rmSync(tmp, { recursive: true, force: true });
  else console.log(`# left for inspection: ${tmp}`);
});

function run(command, argv, env = {}) {
  const started = Date.now();
  const r = spawnSync(command, argv, { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    throw new Error(`${command} ${argv.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  console.log(`# ${path.basename(command)} ${argv[0]} ... ${Date.now() - started} ms`);
  return r.stdout;
}

// 1. Install, then build the example against the prefix alone. The JSON library is hidden from
// find_package: vigil::swim must not need it.
run('cmake', ['--install', args.build, '--prefix', prefix]);
for (const f of ['lib/libvigil_swim.a', 'lib/cmake/vigil/vigilConfig.cmake', 'lib/pkgconfig/vigil-swim.pc',
                 'include/vigil/swim/node.hpp', 'bin/vigil'])
  check(existsSync(path.join(prefix, f)), `installed ${f}`);
check(spawnSync(path.join(prefix, 'bin/vigil'), ['--help']).status === 0, 'the installed vigil runs');

const exampleBuild = path.join(tmp, 'embed-build');
const configure = ['-S', path.join(args.source, 'examples/embed'), '-B', exampleBuild,
                   `-DCMAKE_PREFIX_PATH=${prefix}`, `-DCMAKE_CXX_COMPILER=${cxx}`,
                   `-DCMAKE_CXX_FLAGS=${['-Wall', '-Wextra', '-Werror', ...sanitize].join(' ')}`,
                   `-DCMAKE_EXE_LINKER_FLAGS=${sanitize.join(' ')}`, '-DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON'];
if (launcher.length) configure.push(`-DCMAKE_CXX_COMPILER_LAUNCHER=${launcher.join(';')}`);
run('cmake', configure);
run('cmake', ['--build', exampleBuild, '-j2']);
const embed = path.join(exampleBuild, 'embed');
check(existsSync(embed), 'examples/embed built against the installed package');

// 2. Two members on loopback.
function start(name, port, join) {
  const argv = ['--name', name, '--bind', `127.0.0.1:${port}`];
  if (join) argv.push('--join', `127.0.0.1:${join}`);
  const child = spawn(embed, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const member = { name, port, child, log: '', alive: true, code: null };
  child.stdout.on('data', (c) => { member.log += c; });
  child.stderr.on('data', (c) => { member.log += c; });
  child.on('exit', (code) => { member.alive = false; member.code = code; });
  children.push(member);
  return member;
}
function sees(member, other, what) {
  return member.log.includes(`[${member.name}] member ${other.name} at 127.0.0.1:${other.port} ${what}`);
}
async function waitLog(member, text, ms, what) {
  await waitFor(() => {
    if (member.log.includes(text)) return true;
    if (!member.alive) throw new Error(`${member.name} exited ${member.code} before ${what}:\n${member.log}`);
    return false;
  }, ms, what, 25);
}

const a = start('a', await freePort());
await waitLog(a, '[a] listening on', 5000, 'a to listen');
const b = start('b', await freePort(), a.port);
const joinedAt = Date.now();
try {
  await waitFor(() => sees(a, b, 'joined') && sees(b, a, 'joined'), 5000, 'a and b to see each other join', 25);
} catch (e) {
  throw new Error(`${e.message}\n--- a\n${a.log}--- b\n${b.log}`, { cause: e });
}
check(true, `a and b see each other alive ${Date.now() - joinedAt} ms after b started`);

const termAt = Date.now();
b.child.kill('SIGTERM');
await waitFor(() => sees(a, b, 'left'), 5000, 'a to see b leave', 25);
check(true, `a sees b leave ${Date.now() - termAt} ms after SIGTERM`);
await waitFor(() => !b.alive, 5000, 'b to exit', 25);
check(b.code === 0 && b.log.includes('[b] left the cluster'), `b left gracefully and exited 0 (${b.code})`);
check(!sees(a, b, 'is dead') && !sees(a, b, 'is suspect'), 'a saw a departure, not a failure');
a.child.kill('SIGTERM');
await waitFor(() => !a.alive, 5000, 'a to exit', 25);
check(a.code === 0, `a exited 0 on SIGTERM (${a.code})`);

// 3. A program built with pkg-config alone.
const hello = path.join(tmp, 'hello.cpp');
writeFileSync(hello, `#include <vigil/swim/node.hpp>
#include <cstdio>
int main() {
  using namespace vigil;
  auto node = swim::Node::create(swim::Config::lan(), "solo",
                                 swim::Address::from_octets(127, 0, 0, 1, 7946), Rng(1));
  if (!node) return 1;
  node->start(Millis{0});
  std::printf("%s %zu\\n", node->name().c_str(), node->member_count());
  return node->next_deadline() > Millis{0} && node->member_count() == 1 ? 0 : 1;
}
`);
const pc = { PKG_CONFIG_PATH: path.join(prefix, 'lib/pkgconfig') };
const flags = run('pkg-config', ['--cflags', '--libs', 'vigil-swim'], pc).trim().split(/\s+/);
check(flags.some((f) => f.startsWith('-I') && f.includes(prefix)), `pkg-config points into the prefix: ${flags.join(' ')}`);
// The compiler's default standard (C++17 for GCC 12) is too old: pkg-config names the one needed.
check(flags.includes('-std=c++20'), `pkg-config asks for C++20: ${flags.join(' ')}`);
// Compiled and linked apart: a launcher such as ccache caches only a compilation.
const isCflag = (f) => f.startsWith('-I') || f.startsWith('-std=');
const cflags = flags.filter(isCflag);
const libs = flags.filter((f) => !isCflag(f));
const compile = [cxx, '-Wall', '-Wextra', '-Werror', ...sanitize, ...cflags, '-c', hello, '-o', `${hello}.o`];
if (launcher.length) run(launcher[0], [...launcher.slice(1), ...compile]);
else run(compile[0], compile.slice(1));
run(cxx, [...sanitize, `${hello}.o`, ...libs, '-o', path.join(tmp, 'hello')]);
const out = spawnSync(path.join(tmp, 'hello'), { encoding: 'utf8' });
check(out.status === 0 && out.stdout.trim() === 'solo 1', `the pkg-config program runs: '${out.stdout.trim()}'`);
passed = true;
console.log('library.embed: all checks passed');
