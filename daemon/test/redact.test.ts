import { describe, expect, it } from 'vitest';
import { parseDuration } from '../duration';
import { redact, tailBytes } from '../redact';

describe('redaction', () => {
  it.each([
    ['key sk-ant-api03-abcdefghijklmnop1234', 'key sk-[redacted]'],
    ['ghp_0123456789abcdefghijABCDEFGHIJ', 'ghp_[redacted]'],
    ['github_pat_11AAAAAAA0123456789_abcdefghij', 'gith[redacted]'],
    ['AKIAIOSFODNN7EXAMPLE', 'AKIA[redacted]'],
    ['xoxb-1234567890-abcdef', 'xoxb-[redacted]'],
    ['Authorization: Bearer abc.def.ghi-123', 'Authorization: Bearer [redacted]'],
    ['token=abcdefgh12345678', 'token=[redacted]'],
    ['a crl_AbCdEfGhIjKlMnOpQrSt token', 'a crl_[redacted] token'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----', '[redacted private key]'],
  ])('%s', (input, output) => {
    expect(redact(input)).toBe(output);
  });

  it('leaves ordinary text alone', () => {
    const text = 'sk-short is fine, so is a task list and "token" as a word';
    expect(redact(text)).toBe(text);
  });

  it('keeps the last bytes on a character boundary', () => {
    expect(tailBytes('ééé', 3)).toBe('é');
    expect(tailBytes('abc', 10)).toBe('abc');
  });
});

describe('durations', () => {
  it.each([
    ['8h', 28_800_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    [5, 5_000],
    ['off', null],
    ['soon', undefined],
    ['-1s', undefined],
  ])('%s', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });
});
