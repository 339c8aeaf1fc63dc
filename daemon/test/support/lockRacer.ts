// A process that tries to take a home's lock (homeLock.test.ts): says HELD and keeps it until
// killed, or says REFUSED and why, and ends.

import { HomeLock } from '../../home/homeLock';

const [home, name] = process.argv.slice(2) as [string, string];
try {
  HomeLock.acquire(home, name, Date.now());
  process.stdout.write('HELD\n');
  setInterval(() => {}, 60_000);
} catch (err) {
  process.stdout.write(`REFUSED ${(err as Error).message}\n`);
}
