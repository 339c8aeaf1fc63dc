// A file's identity, size and time in one string: cheap to ask every few seconds, and different
// whenever the file was written or replaced ("none" while it does not exist).

import fs from 'node:fs';

export function fileSignature(file: string): string {
  try {
    // A file not there is no exception: watchers ask about files that mostly are not (a ref not packed).
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : 'none';
  } catch {
    return 'none';
  }
}
