// tinyglobby's glob, loaded at the first glob rather than with the daemon (it brings picomatch,
// about 5 ms of a start that needs no glob before it answers).

import type { GlobOptions } from 'tinyglobby';

export async function glob(patterns: string | readonly string[], options?: Omit<GlobOptions, 'patterns'>): Promise<string[]> {
  return (await import('tinyglobby')).glob(patterns, options);
}
