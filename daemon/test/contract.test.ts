// The contract's table is the API: the HTTP client made from it and the router made from it
// agree, for every method, on where each field travels (path, query, body), and a request that
// does not fit its method's schema is refused with the field named.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseViewerFrame } from '../contract/frames';
import { httpCall } from '../contract/httpClient';
import { METHOD_NAMES, METHODS, parseRequest, takesNothing, type Method } from '../contract/methods';
import { inputOf, matchRoute } from '../transports/http/routes';

/** A value for every field of a schema, with characters a URL must escape. */
function fill(shape: Record<string, z.ZodType>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(shape).map(([field, schema]) => [field, value(field, schema)]));
}

function value(field: string, schema: z.ZodType): unknown {
  const type = (schema instanceof z.ZodOptional ? schema.unwrap() : schema) as z.ZodType;
  if (type instanceof z.ZodBoolean) return true;
  if (type instanceof z.ZodNumber) return 7;
  if (type instanceof z.ZodEnum) return type.options[0];
  if (type instanceof z.ZodObject) return fill(type.shape as Record<string, z.ZodType>);
  if (type instanceof z.ZodArray) {
    const element = type.element as z.ZodType;
    return element instanceof z.ZodString ? ['a b', 'c/d'] : [value(field, element), value(field, element)];
  }
  return `${field} #1/ä?&=`;
}

/** Fields whose schema takes only a shape of text: a value of that shape, still with characters a URL escapes. */
const SHAPED: Partial<Record<Method, Record<string, unknown>>> = {
  addHost: { name: 'dev-box-2', target: 'me.too@[::1]:2222', corral: '~/bin/corral+x' },
};

/** A request with every field of the method filled in. */
function sample(method: Method): Record<string, unknown> {
  return { ...fill(METHODS[method].input.shape as Record<string, z.ZodType>), ...SHAPED[method] };
}

describe('the contract table', () => {
  for (const method of METHOD_NAMES) {
    it(`${method}: what the client sends, the router reads back whole`, () => {
      const req = sample(method);
      const call = httpCall(method, req);
      const url = new URL(call.path, 'http://x');
      const { match } = matchRoute(call.verb, url.pathname);
      expect(match?.route.endpoint).toBe(METHODS[method].http);
      const body = call.body === undefined ? undefined : JSON.parse(JSON.stringify(call.body));
      expect(parseRequest(method, inputOf(method, match!.params, url.searchParams, body))).toEqual(req);
    });
  }

  it('a method that takes nothing sends nothing', () => {
    expect(httpCall('listSessions')).toEqual({ verb: 'GET', path: '/api/sessions' });
    expect(httpCall('startSession', { id: 'a' })).toEqual({ verb: 'POST', path: '/api/sessions/a/start' });
  });

  it('a method that takes nothing is checked without its schema as its schema checks it: nothing taken, anything else refused by the schema', () => {
    for (const method of METHOD_NAMES) expect(takesNothing(method), method).toBe(Object.keys(METHODS[method].input.shape).length === 0);
    expect(takesNothing('listSessions')).toBe(true);
    expect(parseRequest('listSessions', {})).toEqual({});
    expect(parseRequest('listSessions', undefined)).toEqual({});
    expect(() => parseRequest('listSessions', { all: true })).toThrow(expect.objectContaining({ message: 'unknown field: all', field: 'all' }));
    expect(() => parseRequest('listSessions', [])).toThrow(expect.objectContaining({ code: 'bad_request' }));
  });

  it('refuses what does not fit, naming the field, and never takes a path field from the body', () => {
    expect(() => parseRequest('renameSession', { id: 'a', name: 5 })).toThrow(expect.objectContaining({ code: 'bad_request', field: 'name' }));
    expect(() => parseRequest('renameSession', { id: 'a', name: 'n', cwd: '/' })).toThrow(expect.objectContaining({ message: 'unknown field: cwd', field: 'cwd' }));
    expect(() => parseRequest('reorderSessions', { ids: 'a' })).toThrow(expect.objectContaining({ field: 'ids' }));
    expect(() => inputOf('renameSession', { id: 'a' }, new URLSearchParams(), { id: 'b', name: 'n' })).toThrow(expect.objectContaining({ field: 'id' }));
    expect(() => inputOf('removeSession', { id: 'a' }, new URLSearchParams('force=yes'), undefined)).toThrow(expect.objectContaining({ message: 'force must be 1 or 0' }));
    expect(() => inputOf('screen', { id: 'a' }, new URLSearchParams('lines=abc'), undefined)).toThrow(expect.objectContaining({ field: 'lines' }));
  });
});

describe('a viewer\'s frames', () => {
  it('an acknowledgement counts bytes; one that counts characters (protocol 1) is refused with the reason', () => {
    expect(parseViewerFrame({ type: 'ack', bytes: 5_000 })).toEqual({ type: 'ack', bytes: 5_000 });
    expect(parseViewerFrame({ type: 'ack', chars: 5_000 })).toEqual({ error: expect.stringContaining('bytes') });
    expect(parseViewerFrame({ type: 'ack', bytes: -1 })).toHaveProperty('error');
  });
});
