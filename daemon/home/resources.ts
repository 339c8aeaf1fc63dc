import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Finds a file under resources/, looking up from this module (source tree or a build in out/). */
/** This module's folder, whether it runs as ES module (the CLI, tests) or CommonJS (Electron's main). */
export const moduleDir = (): string => (typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url)));

export function resourcePath(name: string): string {
  let dir = moduleDir();
  for (;;) {
    const candidate = path.join(dir, 'resources', name);
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return path.join(moduleDir(), '..', 'resources', name);
    dir = parent;
  }
}
