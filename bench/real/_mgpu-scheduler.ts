/**
 * The project's mGPU scheduler alone in a process, so scheduler-vs-kube-scheduler.ts reads its
 * CPU time from /proc the way it reads kube-scheduler's. Owns only pods that name it (the bench's
 * kube-scheduler pods stay kube-scheduler's). Prints `synced` once its informers have listed;
 * stops on SIGTERM.
 *
 * node --import tsx --conditions=source _mgpu-scheduler.ts --kubeconfig FILE --context NAME
 */
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { SCHEDULER_NAME, startMgpuScheduler } from '../../packages/cluster-sim/src/index.js';

const { values } = parseArgs({
  options: { kubeconfig: { type: 'string' }, context: { type: 'string' } },
});
if (!values.kubeconfig || !values.context) {
  process.stderr.write('usage: _mgpu-scheduler.ts --kubeconfig FILE --context NAME\n');
  process.exit(2);
}
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(values.kubeconfig);
kubeConfig.setCurrentContext(values.context);

const scheduler = await startMgpuScheduler(kubeConfig, {
  schedulerNames: [SCHEDULER_NAME],
  log: (message) => process.stderr.write(`[mgpu-scheduler] ${message}\n`),
});
process.stdout.write('synced\n');

const stop = async () => {
  await scheduler.stop();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
// The bench may die without a signal: a stdin that closes is the sign to go.
process.stdin.resume();
process.stdin.once('end', () => void stop());
