import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Finds a file under resources/, looking up from this module (source tree or a build in out/). */
export function resourcePath(name: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'resources', name);
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'resources', name);
    dir = parent;
  }
}
