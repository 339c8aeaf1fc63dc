// Node 20 keeps no compiled code between runs (module.enableCompileCache is Node 22), so
// `corral serve` is built as one CommonJS file compiled here through vm.Script with a V8 code
// cache the build makes beside it (out/cli/serve.cjs and serve.cjs.cache). V8 refuses a cache
// made by another Node or under other V8 flags, and the file then compiles as if it had none.
// V8 checks a cache against its source's length only: the build deletes the cache before it
// writes the file, and makes it again from that file. The cache holds what was compiled when it
// was made: the build makes it after a rehearsal of a start (serve.ts), so the functions a start
// runs are in it, not only the file's top level.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

type ModuleBody = (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;

function compile(file: string, cachedData?: Buffer): vm.Script {
  // The build writes the file in ASCII, which Latin-1 reads as UTF-8 would, in a third of the time (1.6 MB: 3 ms against 9).
  const source = fs.readFileSync(file, 'latin1');
  // Node's own CommonJS wrapper, on the source's first line so that line numbers stay the file's.
  return new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
}

function run(script: vm.Script, file: string): unknown {
  const module = { exports: {} as unknown };
  (script.runInThisContext() as ModuleBody)(module.exports, createRequire(file), module, file, path.dirname(file));
  return module.exports;
}

/** A CommonJS file's exports (an ASCII file), compiled with its code cache when there is one V8 accepts. */
export function requireCached(given: string): unknown {
  const file = path.resolve(given);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(`${file}.cache`);
  } catch {
    // None: it compiles from source.
  }
  return run(compile(file, cachedData), file);
}

/** For the build: runs the file's top level, then `rehearse` with its exports, and writes the cache of all that ran. */
export async function writeCodeCache(given: string, rehearse: (exports: unknown) => Promise<void>): Promise<void> {
  const file = path.resolve(given);
  const script = compile(file);
  const exports = run(script, file);
  // A rehearsal that fails still leaves the cache of what ran until then.
  await rehearse(exports).catch((err: Error) => console.warn(`build: the rehearsal of a start failed (${err.message}); the code cache holds less of it`));
  // Whole or not at all, for a `serve` starting meanwhile.
  fs.writeFileSync(`${file}.cache.${process.pid}`, script.createCachedData());
  fs.renameSync(`${file}.cache.${process.pid}`, `${file}.cache`);
}
