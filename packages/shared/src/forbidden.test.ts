import { describe, expect, it } from 'vitest';
import { forbiddenActionOf } from './kube-failure.js';
import { describeKubeRefusal } from './server-errors.js';

const rbac = (message: string) => ({ code: 403, reason: 'Forbidden', message, causes: [] });
const request = { name: 'demo', namespace: 'team-b', replicas: 1, containers: [] };

describe('rule forbidden', () => {
  it("reads verb, resource and namespace from kube-apiserver's RBAC refusal", () => {
    expect(
      forbiddenActionOf(
        rbac(
          'deployments.apps is forbidden: User "system:serviceaccount:team-a:alice" cannot create resource "deployments" in API group "apps" in the namespace "team-b"',
        ),
      ),
    ).toEqual({
      user: 'system:serviceaccount:team-a:alice',
      verb: 'create',
      resource: 'deployments.apps',
      namespace: 'team-b',
    });
    expect(
      forbiddenActionOf(
        rbac(
          'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope',
        ),
      ),
    ).toEqual({ user: 'bob', verb: 'list', resource: 'nodes' });
    // A quota's 403 is not RBAC's: its own message is shown.
    expect(forbiddenActionOf(rbac('pods "x" is forbidden: exceeded quota: gpu'))).toBeUndefined();
  });

  it('puts the refusal on the form in the operator language, naming what was refused', () => {
    const status = rbac(
      'deployments.apps "demo" is forbidden: User "alice" cannot create resource "deployments" in API group "apps" in the namespace "team-b"',
    );
    const en = describeKubeRefusal(status, request, 'en');
    expect(en.code).toBe('FORBIDDEN');
    expect(en.errors).toHaveLength(1);
    expect(en.errors[0]).toMatchObject({ rule: 'forbidden', path: '' });
    for (const word of ['alice', 'create', 'deployments.apps', 'team-b'])
      expect(en.errors[0]?.message).toContain(word);
    const zh = describeKubeRefusal(status, request, 'zh-CN').errors[0];
    expect(zh?.message).toContain('命名空间“team-b”');
    expect(zh?.message).toContain('create');
    expect(zh?.message).not.toBe(en.errors[0]?.message);
  });
});
