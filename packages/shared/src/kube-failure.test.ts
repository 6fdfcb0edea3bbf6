import { describe, expect, it } from 'vitest';
import { consoleCodeOf, kubeFailureOf } from './kube-failure.js';

describe('the meaning of a Kubernetes failure', () => {
  it.each([
    [0, 'unavailable', 'SERVICE_UNAVAILABLE'],
    [400, 'bad-request', 'BAD_REQUEST'],
    [401, 'unauthorized', 'UNAUTHORIZED'],
    [403, 'forbidden', 'FORBIDDEN'],
    [404, 'not-found', 'NOT_FOUND'],
    [409, 'conflict', 'CONFLICT'],
    [410, 'gone', 'CONFLICT'],
    [422, 'invalid', 'UNPROCESSABLE_CONTENT'],
    [429, 'throttled', 'TOO_MANY_REQUESTS'],
    [500, 'unavailable', 'SERVICE_UNAVAILABLE'],
    [503, 'unavailable', 'SERVICE_UNAVAILABLE'],
    [405, 'internal', 'INTERNAL_SERVER_ERROR'],
  ] as const)('reads %i as %s, answered %s', (code, failure, answer) => {
    expect(kubeFailureOf({ code })).toBe(failure);
    expect(consoleCodeOf({ code })).toBe(answer);
  });
});
