import os from 'node:os';

const BY_NUMBER = new Map<number, string>(Object.entries(os.constants.signals).map(([name, num]) => [num, name]));

/** "SIGTERM" for 15; the number as text when the system has no name for it. */
export function signalName(signal: number | undefined | null): string | null {
  if (signal === undefined || signal === null || signal === 0 || Number.isNaN(signal)) return null;
  return BY_NUMBER.get(signal) ?? String(signal);
}
