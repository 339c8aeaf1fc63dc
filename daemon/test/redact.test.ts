import { describe, expect, it } from 'vitest';
import { parseDuration } from '../catalogue/duration';
import { redact, tailBytes } from '../engine/redact';
import { isTyping } from '../engine/typing';

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

describe('typing, as opposed to a terminal answering', () => {
  it.each([
    ['\x1b[I', false],
    ['\x1b[O', false],
    ['\x1b[?1;2c', false],
    ['\x1b[>0;276;0c', false],
    ['\x1b[12;40R', false],
    ['\x1b]11;rgb:1616/1818/1d1d\x1b\\', false],
    ['\x1bP>|xterm.js(6.0.0)\x1b\\', false],
    ['\x1b[I\x1b[?1;2c', false],
    ['a', true],
    ['\r', true],
    ['\x03', true],
    ['\x1b[Ahello', true],
  ])('%j is typing: %s', (data, typing) => {
    expect(isTyping(data)).toBe(typing);
  });
});
