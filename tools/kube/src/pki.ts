import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Files of the throwaway PKI of one cluster:real run (all inside its temp dir). */
export interface ClusterPki {
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  /** Service-account token signing key pair (kube-apiserver signs, everyone verifies). */
  serviceAccountKey: string;
  serviceAccountPub: string;
}

/** The identities of the static token file; each becomes a user in the kubeconfig. */
export interface TokenUser {
  /** Kubeconfig user and context suffix. */
  id: 'admin' | 'controller-manager' | 'scheduler' | 'console' | 'controllers' | 'viewer';
  user: string;
  groups: string[];
  token: string;
}

// Two days is plenty for a test cluster, and a leaked key is worthless after the run.
const DAYS = '2';

/** A fresh EC P-256 key for each certificate request. */
const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

const openssl = (dir: string, args: string[]) =>
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

/**
 * CA + serving certificate for 127.0.0.1 via Debian's openssl (Node can sign nothing X.509),
 * and the service-account key pair via Node's crypto. EC P-256 keys: fast to make, and Go's
 * TLS stack and the service-account signer both take them.
 */
export function createPki(dir: string): ClusterPki {
  openssl(dir, [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    DAYS,
    '-subj',
    '/CN=mgpu-cluster-real-ca',
  ]);
  // Clients reach the server only on loopback; the in-cluster names keep kubectl's and
  // client-node's hostname checks happy should anything use them.
  signServingCertificate(dir, 'apiserver', 'kube-apiserver', [
    'IP:127.0.0.1',
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
  ]);
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  writeFileSync(join(dir, 'sa.key'), privateKey, { mode: 0o600 });
  writeFileSync(join(dir, 'sa.pub'), publicKey);
  return {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    serviceAccountKey: join(dir, 'sa.key'),
    serviceAccountPub: join(dir, 'sa.pub'),
  };
}

/**
 * `<name>.key` and `<name>.crt` in `dir`: a loopback serving certificate signed by the run's CA
 * (`ca.crt`/`ca.key` in the same dir), so anything that trusts the CA trusts the server.
 */
export function signServingCertificate(
  dir: string,
  name: string,
  commonName: string,
  subjectAltNames: readonly string[],
): { cert: string; key: string } {
  openssl(dir, [
    'req',
    ...ec,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${commonName}`,
  ]);
  writeFileSync(
    join(dir, `${name}.ext`),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${subjectAltNames.join(',')}`,
    ].join('\n'),
  );
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    DAYS,
    '-extfile',
    `${name}.ext`,
  ]);
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}

const token = () => randomBytes(24).toString('hex');

/**
 * The static token users. `console` and `controllers` get only the ClusterRoles of
 * rbac/console-clusterrole.yaml; `viewer` gets the built-in `view` role, so it can read but not
 * create Deployments (the 403 the RBAC test checks).
 */
export function createTokenUsers(): TokenUser[] {
  return [
    { id: 'admin', user: 'mgpu-admin', groups: ['system:masters'], token: token() },
    // kube-controller-manager's own identity; the bootstrap RBAC policy grants it what it needs.
    {
      id: 'controller-manager',
      user: 'system:kube-controller-manager',
      groups: [],
      token: token(),
    },
    // kube-scheduler's, for the side-by-side benchmark; bootstrap RBAC's system:kube-scheduler.
    { id: 'scheduler', user: 'system:kube-scheduler', groups: [], token: token() },
    { id: 'console', user: 'mgpu-console', groups: ['mgpu:console'], token: token() },
    { id: 'controllers', user: 'mgpu-controllers', groups: ['mgpu:controllers'], token: token() },
    { id: 'viewer', user: 'mgpu-viewer', groups: ['mgpu:viewers'], token: token() },
  ];
}

/** kube-apiserver's --token-auth-file: token,user,uid,"group1,group2". */
export function writeTokenFile(file: string, users: TokenUser[]): void {
  const lines = users.map((u) => `${u.token},${u.user},${u.user},"${u.groups.join(',')}"`);
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
}
