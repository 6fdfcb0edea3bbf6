import { describe, expect, it } from 'vitest';
import { sameOriginPath } from './oidc-sign-in.js';

describe('where a sign-in through the issuer goes back to', () => {
  it('keeps a path of this console with its query and fragment', () => {
    expect(sameOriginPath('/workloads?namespace=team-a')).toBe('/workloads?namespace=team-a');
    expect(sameOriginPath('/allocations#node-1')).toBe('/allocations#node-1');
  });

  it('sends anything that would leave the console to the start page', () => {
    for (const away of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example/x',
      '/\t/evil.example',
      'javascript:alert(1)',
      'workloads',
      '',
      undefined,
      ['/workloads'],
    ])
      expect(sameOriginPath(away)).toBe('/');
  });
});
