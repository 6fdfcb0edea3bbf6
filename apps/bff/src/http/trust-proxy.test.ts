import { describe, expect, it } from 'vitest';
import { parseTrustProxy } from './trust-proxy.js';

describe('--trust-proxy', () => {
  it('takes a number of hops or the proxies’ addresses and CIDRs', () => {
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy(' 10.0.0.0/8, fd00::/8 ')).toEqual(['10.0.0.0/8', 'fd00::/8']);
    expect(parseTrustProxy('loopback,192.0.2.7')).toEqual(['loopback', '192.0.2.7']);
  });

  it.each(['0', '11', '', ' , ', 'banana', '10.0.0.0/33', '10.0.0.0/8/1'])(
    'refuses %j, naming the flag',
    (text) => {
      expect(() => parseTrustProxy(text)).toThrow(/^--trust-proxy/);
    },
  );
});
