import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { checkRequest } from './check.js';
import { lintManifests, lintObject, ManifestParseError, parseManifests } from './lint.js';
import { validRequest } from './test-support/arbitraries.js';

const deployment = (
  annotations: Record<string, string>,
  limits: Record<string, string>,
  name = 'worker',
) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'demo' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'demo' } },
    template: {
      metadata: { labels: { app: 'demo' }, annotations },
      spec: {
        containers: [{ name, image: 'nginx:1.27', resources: { requests: limits, limits } }],
      },
    },
  },
});

const NBS = { 'vke.volcengine.com/mgpu-compute-policy': 'native-burst-share' };
const core = (value: string) => ({ 'vke.volcengine.com/mgpu-core': value });
const coreAndMemory = (c: string, m: string) => ({
  ...core(c),
  'vke.volcengine.com/mgpu-memory': m,
});
const multi = (cards: string, name = 'worker') => ({
  [`vke.volcengine.com/multiple-mgpu-${name}`]: cards,
});

describe('lintObject', () => {
  it.each([
    ['the seed example', deployment({ ...NBS, ...multi('2') }, coreAndMemory('120', '8192')), []],
    [
      '1 card over 3 cards',
      deployment({ ...NBS, ...multi('3') }, coreAndMemory('100', '12288')),
      ['per-card-compute-precision'],
    ],
    [
      '5 GiB over 3 cards',
      deployment({ ...NBS, ...multi('3') }, coreAndMemory('90', '5120')),
      ['per-card-memory-integer'],
    ],
    [
      'whole cards with memory',
      deployment({ ...NBS, ...multi('2') }, coreAndMemory('200', '8192')),
      ['memory-with-whole-card'],
    ],
    ['a slice without memory', deployment({}, core('50')), ['memory-required']],
    [
      '1.5 cards on one card',
      deployment({}, coreAndMemory('150', '4096')),
      ['compute-whole-cards'],
    ],
    [
      'multi-card without native-burst-share',
      deployment(multi('2'), coreAndMemory('120', '8192')),
      ['multi-card-policy'],
    ],
    [
      '3 cards over 2',
      deployment({ ...NBS, ...multi('2') }, core('300')),
      ['per-card-compute-max'],
    ],
    [
      'nine cards',
      deployment({ ...NBS, ...multi('9') }, coreAndMemory('90', '9216')),
      ['cards-range'],
    ],
    ['512 MiB per card', deployment({}, coreAndMemory('50', '512')), ['per-card-memory-range']],
    ['0.125 of a card', deployment({}, coreAndMemory('12.5', '1024')), ['compute-format']],
    [
      'a 50-character multi-card container',
      deployment(
        { ...NBS, ...multi('2', 'x'.repeat(50)) },
        coreAndMemory('120', '8192'),
        'x'.repeat(50),
      ),
      ['annotation-key-too-long'],
    ],
    [
      // Issue 14: the scheduler's gpu-index-container-<name> key is written for one card too.
      'a 44-character single-card container',
      deployment({}, coreAndMemory('50', '8192'), 'x'.repeat(44)),
      ['annotation-key-too-long'],
    ],
  ])('%s', (_label, object, rules) => {
    expect(lintObject(object, 'f.yaml').map((finding) => finding.rule)).toEqual(rules);
  });

  it('names the file, kind, object and the path of the offending field', () => {
    const [finding] = lintObject(
      deployment({ ...NBS, ...multi('3') }, coreAndMemory('100', '12288')),
      'apps.yaml',
    );
    expect(finding).toMatchObject({
      file: 'apps.yaml',
      kind: 'Deployment',
      name: 'demo',
      path: 'spec.template.spec.containers[0].resources.limits["vke.volcengine.com/mgpu-core"]',
      rule: 'per-card-compute-precision',
    });
    expect(finding?.message).toContain('33.33');
  });

  it('reports GPU requests that differ from their limits', () => {
    const object = deployment({}, coreAndMemory('50', '4096'));
    const container = object.spec.template.spec.containers[0];
    if (container) container.resources.requests = coreAndMemory('40', '4096');
    expect(lintObject(object, 'f')).toMatchObject([
      {
        rule: 'requests-equal-limits',
        path: 'spec.template.spec.containers[0].resources.requests["vke.volcengine.com/mgpu-core"]',
      },
    ]);
  });

  it.each(['web.v2', 's'.repeat(53)])(
    'reports a StatefulSet named %s (statefulset-name) at its metadata.name',
    (name) => {
      const object = { ...deployment({}, coreAndMemory('50', '4096')), kind: 'StatefulSet' };
      object.metadata = { name };
      expect(lintObject(object, 'f')).toMatchObject([
        { kind: 'StatefulSet', rule: 'statefulset-name', path: 'metadata.name' },
      ]);
      // The same object as a Deployment breaks nothing.
      expect(lintObject({ ...object, kind: 'Deployment' }, 'f')).toEqual([]);
    },
  );

  it('leaves objects without mGPU alone', () => {
    const plain = deployment({}, {});
    plain.metadata.name = 'Not_A_Valid_Name';
    expect(lintObject(plain, 'f')).toEqual([]);
  });

  it('finds nothing in any manifest the console builds from a valid request', () => {
    fc.assert(
      fc.property(validRequest, (request) => {
        const result = checkRequest(request);
        expect(result.errors).toEqual([]);
        expect(lintManifests(stringify(result.manifest), 'built.yaml')).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseManifests', () => {
  it('reads multi-document YAML, JSON, List objects and skips empty documents', () => {
    const text = `---\nkind: Pod\nmetadata: {name: a}\n---\n---\n{"kind": "List", "items": [{"kind": "Pod"}, {"kind": "Job"}]}\n`;
    expect(parseManifests(text).map((object) => (object as { kind: string }).kind)).toEqual([
      'Pod',
      'Pod',
      'Job',
    ]);
  });

  it('refuses text that is not YAML with a one-line reason', () => {
    expect(() => parseManifests('kind: Pod\n  bad: [unclosed')).toThrow(ManifestParseError);
    // A duplicate key must be refused, and in one line (the YAML library's own is several).
    expect(() => parseManifests('a: 1\na: 2\n')).toThrow(ManifestParseError);
    expect(() => parseManifests('a: 1\na: 2\n')).toThrow(/^[^\n]*$/);
  });
});
