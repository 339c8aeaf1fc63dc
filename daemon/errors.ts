import type { ErrorCode, ErrorShape } from './contract/errors';

/** An expected failure with a code the UI can show. Anything else thrown is a bug. */
export class CorralError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'CorralError';
  }

  toShape(): ErrorShape {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }
}
