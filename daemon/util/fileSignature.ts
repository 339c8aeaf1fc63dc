// A file's identity, size and time in one string: cheap to ask every few seconds, and different
// whenever the file was written or replaced ("none" while it does not exist).

import fs from 'node:fs';

export function fileSignature(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'none';
  }
}
