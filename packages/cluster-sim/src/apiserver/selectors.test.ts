/** Label and field selector grammar, as k8s.io/apimachinery parses it. */
import { describe, expect, it } from 'vitest';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from './selectors.js';
import { ApiError } from './status.js';

const labels = { app: 'web', tier: 'front', 'example.com/team': 'gpu' };

describe('label selectors', () => {
  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web, db)', true],
    ['app notin (web)', false],
    ['missing notin (web)', true],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['example.com/team=gpu,app=web', true],
    ['app=web,tier=back', false],
    ['', true],
  ])('%s matches: %s', (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it.each(['app in (', '==x', 'bad key=v', 'app=in valid', 'a,,b', '-app=x'])(
    'refuses %s with 400',
    (selector) => {
      try {
        parseLabelSelector(selector);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).code).toBe(400);
      }
    },
  );
});

describe('field selectors', () => {
  const supported = new Set(['metadata.name', 'spec.nodeName', 'status.phase']);
  const pod: Record<string, string> = {
    'metadata.name': 'p',
    'spec.nodeName': '',
    'status.phase': 'Pending',
  };

  it('matches equality and inequality, with an empty value', () => {
    const requirements = parseFieldSelector(
      'spec.nodeName=,status.phase!=Running,metadata.name==p',
      supported,
    );
    expect(matchesFields(requirements, (field) => pod[field] ?? '')).toBe(true);
  });

  it('refuses unsupported fields and nonsense with 400', () => {
    expect(() => parseFieldSelector('spec.foo=bar', supported)).toThrow(
      /field label not supported: spec.foo/,
    );
    expect(() => parseFieldSelector('nonsense', supported)).toThrow(ApiError);
  });
});
