/**
 * A replica in a process of its own for the leader-election test: runs a LeaderElector and
 * prints `leading` once it holds the Lease, so the test can kill it with SIGKILL (a crash, no
 * release) and watch another take over.
 *
 *   node --conditions=source --import tsx lease-holder.ts KUBECONFIG NAMESPACE NAME IDENTITY
 */
import { KubeConfig } from '@kubernetes/client-node';
import { LeaderElector } from '@mgpu/kube-client';

const [kubeconfig, namespace, name, identity] = process.argv.slice(2);
if (!kubeconfig || !namespace || !name || !identity) {
  process.stderr.write('usage: lease-holder.ts KUBECONFIG NAMESPACE NAME IDENTITY\n');
  process.exit(2);
}
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(kubeconfig);
const elector = new LeaderElector({
  kubeConfig,
  namespace,
  name,
  identity,
  leaseDurationSeconds: 2,
  renewDeadlineMs: 1500,
  retryPeriodMs: 200,
  log: (message) => process.stderr.write(`${message}\n`),
});
elector.onChange((leading) => {
  process.stdout.write(`${leading ? 'leading' : 'not leading'}\n`);
});
elector.start();
// The elector's timers are unref'ed: this keeps the process alive until it is killed.
setInterval(() => {}, 60_000);
