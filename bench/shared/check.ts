/**
 * `checkRequest` on an 8-container request: is validating on every keystroke free?
 * Target (issue 3): p99 under 0.2 ms. Baseline in the same run: the zod schema parse alone.
 */
import { checkRequest, WorkloadRequestSchema } from '@mgpu/shared';
import { Bench } from 'tinybench';
import { heading, printBench } from '../lib/report.js';

const gpus = [
  { type: 'mgpu', multiCard: true, compute: '1.2', memoryGiB: '8', cards: 2, model: 'NVIDIA-L20' },
  { type: 'mgpu', multiCard: false, compute: '0.35', memoryGiB: '6' },
  { type: 'mgpu', multiCard: true, compute: '2.4', memoryGiB: '24', cards: 4 },
  { type: 'mgpu', multiCard: false, compute: '2' },
  { type: 'nvidia', multiCard: false, cards: 2 },
  { type: 'mgpu', multiCard: true, compute: '0.9', memoryGiB: '12', cards: 3 },
  { type: 'none', multiCard: false },
  { type: 'mgpu', multiCard: true, compute: '1', memoryGiB: '5', cards: 3 }, // two broken rules
];
const input = {
  name: 'bench-workload',
  namespace: 'default',
  replicas: 2,
  computePolicy: 'native-burst-share',
  containers: gpus.map((gpu, index) => ({ name: `c${index}`, image: 'nginx:1.27', gpu })),
};
const valid = { ...input, containers: input.containers.slice(0, 7) };
const invalidRequest = WorkloadRequestSchema.parse(input);
const validRequest = WorkloadRequestSchema.parse({
  ...valid,
  containers: [...valid.containers, { ...valid.containers[0], name: 'c7' }],
});

heading('checkRequest, 8 containers (issue 3)', 'p99 < 0.2 ms per call');
const bench = new Bench({ name: 'check', time: 3000, warmupTime: 500, retainSamples: true });
bench
  .add('baseline: zod parse only', () => {
    WorkloadRequestSchema.parse(input);
  })
  .add('checkRequest, valid (builds manifest)', () => {
    checkRequest(validRequest);
  })
  .add('checkRequest, 2 rules broken (zh-CN)', () => {
    checkRequest(invalidRequest, { lang: 'zh-CN' });
  })
  .add('parse + checkRequest (what the BFF does)', () => {
    checkRequest(WorkloadRequestSchema.parse(input));
  });
await bench.run();
printBench(bench);
