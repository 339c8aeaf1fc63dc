// What a client command can fail with, apart from client.ts so the command line can tell them
// apart without loading the contract (and zod) for a command that never reaches a daemon.

import type { ErrorShape } from '../contract/errors';

export class ClientError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly error?: ErrorShape,
  ) {
    super(message);
  }
}

export class NoDaemonError extends Error {}
