/** The check's ordinary Kubernetes rules (names, replicas, images, containers), read from the spec. */
import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import {
  CARDS,
  type ContainerInput,
  expectErrors,
  type Row,
  requestOf,
  runRow,
  single,
} from './test-support/check-rows.js';

describe('ordinary Kubernetes rules', () => {
  const gpu = single('0.5', '8');
  const container = (name: string, image = 'nginx:1.27'): ContainerInput => ({ name, image, gpu });
  const rows: Row[] = [
    { label: 'name "demo.v1" (a subdomain)', gpu, request: { name: 'demo.v1' }, errors: [] },
    // Issue 14: a valid subdomain longer than 63 is refused by `name-too-long` (label value).
    {
      label: 'name of 253 characters',
      gpu,
      request: { name: 'a'.repeat(253) },
      errors: [['name-too-long', 'name']],
    },
    {
      label: 'name of 254 characters',
      gpu,
      request: { name: 'a'.repeat(254) },
      errors: [['name-format', 'name']],
    },
    { label: 'name "Demo"', gpu, request: { name: 'Demo' }, errors: [['name-format', 'name']] },
    { label: 'empty name', gpu, request: { name: '' }, errors: [['name-format', 'name']] },
    {
      label: 'name "demo_app"',
      gpu,
      request: { name: 'demo_app' },
      errors: [['name-format', 'name']],
    },
    { label: 'name "-demo"', gpu, request: { name: '-demo' }, errors: [['name-format', 'name']] },
    { label: 'name "demo."', gpu, request: { name: 'demo.' }, errors: [['name-format', 'name']] },
    { label: 'namespace "team-a"', gpu, request: { namespace: 'team-a' }, errors: [] },
    {
      label: 'namespace of 63 characters',
      gpu,
      request: { namespace: 'a'.repeat(63) },
      errors: [],
    },
    {
      label: 'namespace of 64 characters',
      gpu,
      request: { namespace: 'a'.repeat(64) },
      errors: [['namespace-format', 'namespace']],
    },
    {
      label: 'namespace "team.a" (a label has no dots)',
      gpu,
      request: { namespace: 'team.a' },
      errors: [['namespace-format', 'namespace']],
    },
    {
      label: 'namespace "Team"',
      gpu,
      request: { namespace: 'Team' },
      errors: [['namespace-format', 'namespace']],
    },
    {
      label: 'container name "worker-1"',
      gpu,
      request: { containers: [container('worker-1')] },
      errors: [],
    },
    {
      label: 'container name "Worker"',
      gpu,
      request: { containers: [container('Worker')] },
      errors: [['container-name-format', 'containers.0.name']],
    },
    {
      label: 'container name "a.b" (a label has no dots)',
      gpu,
      request: { containers: [container('a.b')] },
      errors: [['container-name-format', 'containers.0.name']],
    },
    {
      label: 'empty container name',
      gpu,
      request: { containers: [container('')] },
      errors: [['container-name-format', 'containers.0.name']],
    },
    {
      label: 'container name of 64 characters',
      gpu,
      request: { containers: [container('a'.repeat(64))] },
      errors: [['container-name-format', 'containers.0.name']],
    },
    {
      label: 'two containers named "worker"',
      gpu,
      request: { containers: [container('worker'), container('worker')] },
      errors: [['container-name-unique', 'containers.1.name']],
    },
    {
      label: 'two containers with their own names',
      gpu,
      request: { containers: [container('worker'), container('sidecar')] },
      errors: [],
    },
    {
      label: 'empty image',
      gpu,
      request: { containers: [container('worker', '')] },
      errors: [['image-required', 'containers.0.image']],
    },
    {
      label: 'blank image',
      gpu,
      request: { containers: [container('worker', '   ')] },
      errors: [['image-required', 'containers.0.image']],
    },
    {
      label: 'no containers',
      gpu,
      request: { containers: [] },
      errors: [['containers-required', 'containers']],
    },
    { label: '0 replicas', gpu, request: { replicas: 0 }, errors: [] },
    { label: '3 replicas', gpu, request: { replicas: 3 }, errors: [] },
    {
      label: '-1 replicas',
      gpu,
      request: { replicas: -1 },
      errors: [['replicas-range', 'replicas']],
    },
    {
      label: '1.5 replicas',
      gpu,
      request: { replicas: 1.5 },
      errors: [['replicas-range', 'replicas']],
    },
    {
      label: 'nvidia with multi-card sharing (mGPU only)',
      gpu: { type: 'nvidia', multiCard: true, cards: 2 },
      errors: [['multi-card-mgpu-only', 'containers.0.gpu.multiCard']],
    },
    {
      label: 'nvidia with 0 cards',
      gpu: { type: 'nvidia', cards: 0 },
      errors: [['cards-range', CARDS]],
    },
    {
      label: 'nvidia with 9 cards',
      gpu: { type: 'nvidia', cards: 9 },
      errors: [['cards-range', CARDS]],
    },
    {
      label: 'two containers asking for different models',
      gpu,
      request: {
        containers: [
          { name: 'a', image: 'nginx:1.27', gpu: { ...gpu, model: 'NVIDIA-L20' } },
          { name: 'b', image: 'nginx:1.27', gpu: { ...gpu, model: 'Tesla-V100' } },
        ],
      },
      errors: [['model-conflict', 'containers.1.gpu.model']],
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));

  it('a container without a GPU (or type none) is valid and is not a GPU container', () => {
    const result = checkRequest(
      requestOf(undefined, {
        containers: [
          { name: 'plain', image: 'busybox' },
          { name: 'none', image: 'busybox', gpu: { type: 'none' } },
        ],
      }),
    );
    expectErrors(result, []);
    expect(result.containers).toEqual([]);
    for (const c of result.manifest?.spec.template.spec.containers ?? []) {
      expect(c.resources).toBeUndefined();
    }
  });
});
