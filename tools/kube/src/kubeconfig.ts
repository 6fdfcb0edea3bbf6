import { readFileSync, writeFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { ClusterPki, TokenUser } from './pki.js';

/** Context names in the written kubeconfig: `mgpu-real-<id>`; the admin one is current. */
export const contextName = (id: TokenUser['id']) => `mgpu-real-${id}`;

const CLUSTER = 'mgpu-real';

/**
 * The kubeconfig handed to tests and operators: self-contained (CA inlined), one context per
 * token user so the RBAC test can act as the console, the controllers or a read-only viewer.
 */
export function kubeconfigText(server: string, pki: ClusterPki, users: TokenUser[]): string {
  const ca = readFileSync(pki.caCert).toString('base64');
  // The upstream components' own identities stay with them.
  const exposed = users.filter((u) => u.id !== 'controller-manager' && u.id !== 'scheduler');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CLUSTER, cluster: { server, 'certificate-authority-data': ca } }],
    users: exposed.map((u) => ({ name: u.user, user: { token: u.token } })),
    contexts: exposed.map((u) => ({
      name: contextName(u.id),
      context: { cluster: CLUSTER, user: u.user },
    })),
    'current-context': contextName('admin'),
  });
}

export function writeKubeconfig(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
}

/** A client-node KubeConfig for one of the users (the controllers run in-process with it). */
export function kubeConfigFor(text: string, id: TokenUser['id']): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  kc.setCurrentContext(contextName(id));
  return kc;
}
