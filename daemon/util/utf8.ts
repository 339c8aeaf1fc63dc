// UTF-8 as it comes in pieces: a read may end inside a character.

/** How many bytes at the end begin a UTF-8 character whose other bytes have not come yet. */
export function unfinished(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if (continues(byte)) continue; // its lead is further back
    const length = byte >= 0xf8 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** A continuation byte: the second, third or fourth byte of a character, never its start. */
export const continues = (byte: number): boolean => (byte & 0xc0) === 0x80;
