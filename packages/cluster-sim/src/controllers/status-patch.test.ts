import { KubeError } from '@mgpu/kube-client';
import { describe, expect, it } from 'vitest';
import { patchStatusIfChanged } from './status-patch.js';

/** A recorder in place of the API's status subresource. */
function recorder(answer: () => Promise<unknown> = async () => ({})) {
  const bodies: unknown[] = [];
  return {
    bodies,
    write: async (body: unknown) => {
      bodies.push(body);
      return answer();
    },
  };
}

describe('patchStatusIfChanged', () => {
  it('writes nothing when every owned field already reads the same (absent as 0)', async () => {
    const api = recorder();
    await patchStatusIfChanged({
      current: { replicas: 2, revision: 'a' },
      desired: { replicas: 2, readyReplicas: 0, revision: 'a' },
      write: api.write,
    });
    expect(api.bodies).toEqual([]);
  });

  it('patches the owned fields and the extra ones when a field differs', async () => {
    const api = recorder();
    await patchStatusIfChanged({
      current: { replicas: 1 },
      desired: { replicas: 2 },
      extra: { conditions: [] },
      write: api.write,
    });
    expect(api.bodies).toEqual([{ status: { replicas: 2, conditions: [] } }]);
  });

  it('patches on a change only the caller sees', async () => {
    const api = recorder();
    await patchStatusIfChanged({
      current: undefined,
      desired: { replicas: 0 },
      changed: true,
      write: api.write,
    });
    expect(api.bodies).toEqual([{ status: { replicas: 0 } }]);
  });

  it('takes an object deleted meanwhile as done, and passes other failures on', async () => {
    const gone = recorder(() => Promise.reject(new KubeError(404, 'NotFound', 'gone')));
    await expect(
      patchStatusIfChanged({ current: {}, desired: { replicas: 1 }, write: gone.write }),
    ).resolves.toBeUndefined();
    const refused = recorder(() => Promise.reject(new KubeError(403, 'Forbidden', 'no')));
    await expect(
      patchStatusIfChanged({ current: {}, desired: { replicas: 1 }, write: refused.write }),
    ).rejects.toThrow('no');
  });
});
