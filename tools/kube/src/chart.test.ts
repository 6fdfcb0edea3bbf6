// charts/mgpu-console on the real API server (spec §8 "Install"): helm lint, a server-side dry
// run of what it renders, an install, and then the console started as the chart's pod starts
// it — the rendered args and env, its ServiceAccount's token and the cluster's CA where a pod
// finds them, KUBERNETES_SERVICE_* set — connecting in-cluster and ready with nothing but the
// chart's RBAC. Pods do not run here (no kubelet), so the test is the pod. Runs under
// tools/kube/with-real-cluster.sh.
import type { V1Deployment } from '@kubernetes/client-node';
import { CoreV1Api } from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authModeValues,
  CHART,
  canIAs,
  chartServiceAccount,
  chartTestBed,
  consoleContainer,
  consoleEnvValues,
  deploymentOf,
  FULLNAME,
  installedPod,
  RELEASE,
  renderChart,
  renderedDeployment,
  setFlags,
  templateArgs,
} from './chart-support.js';
import type { ConsoleProcess } from './console-process.js';
import { eventually, kubeConfigAs, kubectl, kubectlJson } from './test-support.js';

const bed = chartTestBed('chart');
const { namespace, helm } = bed;
/** Values of each auth mode, for lint and dry run; the install uses the chart's defaults. */
const MODES = authModeValues(namespace);
const asText = (values: string[]) => values.flatMap((value) => ['--set-string', value]); // a values file's text

const canI = (verb: string, resource: string, ...flags: string[]) =>
  canIAs(chartServiceAccount(namespace), verb, resource, ...flags);

/** The `resources` of every rule of the ClusterRoles the chart renders with `values`. */
function grantedResources(values: string[]): string[] {
  return renderChart(helm, namespace, values)
    .filter((object) => object.kind === 'ClusterRole')
    .flatMap((role) => (role.rules as { resources?: string[] }[] | undefined) ?? [])
    .flatMap((rule) => rule.resources ?? []);
}

describe.skipIf(!onRealTier())('the Helm chart on the real API server', () => {
  let consoleProcess: ConsoleProcess | undefined;

  beforeAll(() => bed.setUp(), 120_000);

  afterAll(async () => {
    await consoleProcess?.stop();
    await bed.tearDown();
  }, 60_000);

  it('is helm v4', () => {
    const version = helm(['version', '--short']);
    expect(version.stdout).toMatch(/^v4\./);
  });

  it('lints clean in every auth mode', () => {
    for (const [mode, values] of Object.entries(MODES)) {
      const lint = helm(['lint', CHART, ...setFlags(values)]);
      expect(lint.status, `${mode}: ${lint.stdout}${lint.stderr}`).toBe(0);
      expect(lint.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    }
  });

  it('refuses values its schema does not allow, before rendering anything', () => {
    const oidcWithoutIssuer = helm(['template', RELEASE, CHART, '--set', 'auth.mode=oidc']);
    expect(oidcWithoutIssuer.status).not.toBe(0);
    expect(oidcWithoutIssuer.stderr).toContain('/auth/oidc/issuer');
    const unknownPolicy = helm(['template', RELEASE, CHART, '--set', 'cardPolicy=fill']);
    expect(unknownPolicy.status).not.toBe(0);
    expect(unknownPolicy.stderr).toContain("value must be one of 'binpack', 'spread'");
    // The console refuses a token under 16 characters at start; the chart refuses it first.
    const shortToken = helm([
      'template',
      RELEASE,
      CHART,
      ...setFlags(['auth.mode=token', 'auth.token.value=a']),
    ]);
    expect(shortToken.status).not.toBe(0);
    expect(shortToken.stderr).toContain('/auth/token/value');
    // Nor one with a space (16 of them, or inside): the console would refuse it, a crash loop.
    for (const token of [' '.repeat(16), '0123456789 abcdef01', '0123456789abcdef\t'])
      expect(
        helm([
          'template',
          RELEASE,
          CHART,
          ...asText(['auth.mode=token', `auth.token.value=${token}`]),
        ]).status,
        JSON.stringify(token),
      ).not.toBe(0);
    // Only what --trust-proxy accepts: 1 to 10 hops, addresses and CIDRs, proxy-addr's names.
    for (const refused of [['ingress.trustProxy=0'], ['ingress.trustProxy=11']])
      expect(helm(['template', RELEASE, CHART, ...setFlags(refused)]).status, refused[0]).not.toBe(
        0,
      );
    for (const refused of ['any', '10.0.0.0/33', '300.1.1.1', 'loopback;rm'])
      expect(
        helm(['template', RELEASE, CHART, ...asText([`ingress.trustProxy=${refused}`])]).status,
        refused,
      ).not.toBe(0);
  });

  it('passes ingress.trustProxy to the console, set as a number or as text', () => {
    const trusted = (values: string[]) => {
      const rendered = helm(['template', RELEASE, CHART, ...values]);
      expect(rendered.status, rendered.stderr).toBe(0);
      return consoleContainer(renderedDeployment(rendered.stdout)).env?.find(
        (variable) => variable.name === 'MGPU_TRUST_PROXY',
      )?.value;
    };
    // `--set` reads 2 as a number; a values file may say "2".
    expect(trusted(setFlags(['ingress.trustProxy=2']))).toBe('2');
    expect(trusted(asText(['ingress.trustProxy=2']))).toBe('2');
    expect(trusted(['--set-string', 'ingress.trustProxy=10.0.0.0/8\\,fd00::/8\\,loopback'])).toBe(
      '10.0.0.0/8,fd00::/8,loopback',
    );
    expect(
      trusted(setFlags(['ingress.enabled=true', 'ingress.hosts[0].host=gpu.example.com'])),
    ).toBe('1');
  });

  it('points the console at Prometheus: URL, token and CA files, query overrides, idle settings', () => {
    const usage = [
      'usage.prometheus.url=https://prometheus.monitoring:9090',
      'usage.prometheus.token.existingSecret=prometheus-reader',
      'usage.prometheus.ca.existingConfigMap=prometheus-ca',
      'usage.queries.existingConfigMap=usage-queries',
      'usage.idleThreshold=2.5',
      'usage.idleAfter=24h',
      'usage.maxAge=30s',
    ];
    const render = (values: string[]) => helm(templateArgs(namespace, values));
    const rendered = render(usage);
    expect(rendered.status, rendered.stderr).toBe(0);
    const pod = renderedDeployment(rendered.stdout).spec?.template.spec;
    const container = pod?.containers[0];
    const env = Object.fromEntries((container?.env ?? []).map((v) => [v.name, v.value]));
    expect(env).toMatchObject({
      MGPU_PROMETHEUS_URL: 'https://prometheus.monitoring:9090',
      MGPU_PROMETHEUS_TOKEN_FILE: '/etc/mgpu-console/prometheus-token/token',
      MGPU_PROMETHEUS_CA_FILE: '/etc/mgpu-console/prometheus-ca/ca.crt',
      MGPU_USAGE_QUERIES: '/etc/mgpu-console/usage-queries/queries.yaml',
      MGPU_IDLE_THRESHOLD: '2.5',
      MGPU_IDLE_AFTER: '24h',
      MGPU_USAGE_MAX_AGE: '30s',
    });
    // Each file is in a folder the Secret or ConfigMap is mounted on whole (no subPath), so the
    // kubelet swaps in a rotated token, which the console re-reads on every query.
    for (const file of ['TOKEN_FILE', 'CA_FILE'].map((name) => env[`MGPU_PROMETHEUS_${name}`]))
      expect(
        container?.volumeMounts?.some(
          (mount) => file?.startsWith(`${mount.mountPath}/`) && !mount.subPath && mount.readOnly,
        ),
      ).toBe(true);
    const volumes = Object.fromEntries((pod?.volumes ?? []).map((volume) => [volume.name, volume]));
    expect(volumes['prometheus-token']?.secret?.secretName).toBe('prometheus-reader');
    expect(volumes['prometheus-ca']?.configMap?.name).toBe('prometheus-ca');
    expect(volumes['usage-queries']?.configMap?.name).toBe('usage-queries');
    // The CA from a Secret instead; the API server accepts what is rendered either way.
    const fromSecret = render([...usage.slice(0, 2), 'usage.prometheus.ca.existingSecret=ca']);
    expect(fromSecret.stdout).toContain('secretName: ca');
    for (const text of [rendered.stdout, fromSecret.stdout]) {
      const applied = kubectl(
        'admin',
        ['apply', '--dry-run=server', '-n', namespace, '-f', '-'],
        text,
      );
      expect(applied.status, applied.stderr).toBe(0);
    }
    // Without usage values the console gets none of it: no source, figures unknown, never 0.
    const plain = helm(['template', RELEASE, CHART]);
    expect(plain.stdout).not.toMatch(/MGPU_PROMETHEUS|MGPU_USAGE|MGPU_IDLE|prometheus-token/);
  });

  it('refuses usage values the console would refuse at start, or that nothing would read', () => {
    const refused = (values: string[], set = setFlags) => {
      const result = helm(['template', RELEASE, CHART, ...set(values)]);
      expect(result.status, values.join(' ')).not.toBe(0);
      return result.stderr;
    };
    expect(refused(['usage.prometheus.url=prometheus:9090'])).toContain('/usage/prometheus/url');
    expect(refused(['usage.idleThreshold=0'])).toContain('/usage/idleThreshold');
    for (const zero of ['0', '00', '0.0'])
      expect(refused([`usage.idleThreshold=${zero}`], asText)).toContain('/usage/idleThreshold');
    expect(refused(['usage.idleThreshold=101'])).toContain('/usage/idleThreshold');
    for (const after of ['half-an-hour', '25h', '1441m', '86401s'])
      expect(refused([`usage.idleAfter=${after}`])).toContain('/usage/idleAfter');
    expect(refused(['usage.maxAge=often'])).toContain('/usage/maxAge');
    // A token, a CA or query overrides without a URL would be mounted for nothing.
    expect(refused(['usage.prometheus.token.existingSecret=prometheus-reader'])).toContain(
      '/usage/prometheus/url',
    );
    expect(refused(['usage.queries.existingConfigMap=usage-queries'])).toContain(
      '/usage/prometheus/url',
    );
    expect(
      refused([
        'usage.prometheus.url=https://prometheus.monitoring:9090',
        'usage.prometheus.ca.existingConfigMap=prometheus-ca',
        'usage.prometheus.ca.existingSecret=prometheus-tls',
      ]),
    ).toContain('/usage/prometheus/ca');
  });

  it('believes forwarded headers from its Ingress only when the Ingress is on', () => {
    const envOf = (values: string[]) =>
      consoleEnvValues(deploymentOf(renderChart(helm, namespace, values)));
    expect(envOf(MODES.oidc ?? []).MGPU_TRUST_PROXY).toBe('1');
    expect(envOf([]).MGPU_TRUST_PROXY).toBeUndefined();
    expect(envOf([...(MODES.oidc ?? []), 'ingress.trustProxy=10.0.0.0/8']).MGPU_TRUST_PROXY).toBe(
      '10.0.0.0/8',
    );
  });

  it('renders, in every auth mode, objects the API server accepts (server-side dry run)', () => {
    for (const [mode, values] of Object.entries(MODES)) {
      const rendered = helm(templateArgs(namespace, values));
      expect(rendered.status, `${mode}: ${rendered.stderr}`).toBe(0);
      const applied = kubectl(
        'admin',
        ['apply', '--dry-run=server', '-n', namespace, '-f', '-'],
        rendered.stdout,
      );
      expect(applied.status, `${mode}: ${applied.stderr}`).toBe(0);
      expect(applied.stdout).toContain(`deployment.apps/${FULLNAME} created (server dry run)`);
    }
  });

  it('installs, with probes, a locked-down securityContext, resources and the metrics port', () => {
    const install = helm(['install', RELEASE, CHART, '--namespace', namespace]);
    expect(install.status, install.stderr).toBe(0);
    expect(install.stdout).toContain('STATUS: deployed');

    const deployment = kubectlJson<V1Deployment>('admin', [
      'get',
      'deployment',
      '-n',
      namespace,
      FULLNAME,
    ]);
    const pod = deployment.spec?.template.spec;
    expect(pod?.serviceAccountName).toBe(FULLNAME);
    expect(pod?.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const container = pod?.containers[0];
    expect(container?.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container?.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
    expect(container?.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
    expect(container?.resources?.requests).toMatchObject({ cpu: '100m', memory: '256Mi' });
    expect(container?.ports).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'http', containerPort: 8080 }),
        expect.objectContaining({ name: 'metrics', containerPort: 9090 }),
      ]),
    );
    // With a read-only root, the console's only writable place is the chart's emptyDir (the
    // session key is mounted read-only: chart-replicas.test.ts).
    expect(container?.volumeMounts?.filter((mount) => !mount.readOnly)).toEqual([
      expect.objectContaining({ name: 'tmp', mountPath: '/tmp' }),
    ]);
    expect(pod?.volumes?.find((volume) => volume.name === 'tmp')?.emptyDir).toBeDefined();
  });

  it("gives the console's account what the informers and per-user checks need, and no Secrets", () => {
    // The shared informers of packages/api/src/cluster/cluster-client.ts and workload-objects.ts.
    const informed = [
      'pods',
      'nodes',
      'deployments.apps',
      'statefulsets.apps',
      'jobs.batch',
      'resourcequotas',
      'mgpunodes.mgpu.console.io',
    ];
    for (const resource of informed) {
      for (const verb of ['list', 'watch'])
        expect(canI(verb, resource), `${verb} ${resource}`).toBe(true);
    }
    // --auth kubernetes (the default): operators' own RBAC decides. A token is checked with a
    // SelfSubjectReview made with it, and by the console's TokenReview only where that API is
    // not served (apps/bff/src/identity/token-review.ts); filtered reads ask a
    // SelfSubjectAccessReview with the operator's token, so the console may not probe others'.
    expect(canI('create', 'tokenreviews.authentication.k8s.io')).toBe(true);
    expect(canI('create', 'subjectaccessreviews.authorization.k8s.io')).toBe(false);
    // ... and never acts beyond reading: no Secrets (but its own, chart-replicas.test.ts), no writes.
    expect(canI('get', 'secrets')).toBe(false);
    expect(canI('list', 'secrets')).toBe(false);
    expect(canI('create', 'deployments.apps')).toBe(false);
    expect(canI('delete', 'pods')).toBe(false);
    // Logs can hold secrets: with per-user auth they (and a StatefulSet's revisions) are read
    // as the operator, so the console's own account may not read them.
    expect(canI('get', 'pods', '--subresource=log')).toBe(false);
    expect(canI('list', 'controllerrevisions.apps')).toBe(false);
  });

  it('grants pods/log and controllerrevisions only where the console reads as itself', () => {
    for (const [mode, values] of Object.entries(MODES)) {
      const granted = grantedResources(values);
      const asItself = mode === 'token' || mode === 'none';
      expect(granted.includes('pods/log'), `${mode}: pods/log`).toBe(asItself);
      expect(granted.includes('controllerrevisions'), `${mode}: controllerrevisions`).toBe(
        asItself,
      );
      expect(granted, mode).toContain('replicasets');
    }
  });

  it('runs as its pod would: in-cluster with its own token, ready, its RBAC enough', async () => {
    // What the kubelet mounts: the account's token, the cluster's CA, the namespace, the key.
    const pod = installedPod(bed);
    const podEnv = pod.env;
    // No command: the image's entry (node apps/bff/dist/main.js) with the chart's args. The test
    // runs the same main module from source, which needs no build.
    expect(consoleContainer(pod.deployment).command).toBeUndefined();
    // In the pod these are every address, so the Service, the probes and Prometheus reach it.
    expect(podEnv.HOST).toBe('0.0.0.0');
    expect(podEnv.MGPU_METRICS_HOST).toBe('0.0.0.0');
    expect(podEnv.MGPU_AUTH).toBe('kubernetes');
    const { server } = pod;
    const admin = kubeConfigAs('admin');
    const started = await pod.start();
    consoleProcess = started;
    const { base, ready, metricsPort } = started;
    expect(ready).toMatchObject({
      ready: true,
      cluster: `cluster: in-cluster service account, server ${server.origin}`,
    });

    // What the informers read as the console's account reaches an operator: the GPU nodes, and
    // a quota created now (the resourcequotas watch). An operator's own token rides along, as
    // --auth kubernetes has each request carry one.
    const operatorToken = admin.getCurrentUser()?.token ?? '';
    const trpc = async (path: string) => {
      const response = await fetch(`${base}/trpc/${path}`, {
        headers: { authorization: `Bearer ${operatorToken}` },
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return ((await response.json()) as { result: { data: unknown } }).result.data;
    };
    const nodes = (await trpc('cluster.nodes')) as Array<{ name: string }>;
    expect(nodes.length).toBeGreaterThan(0);
    await admin.makeApiClient(CoreV1Api).createNamespacedResourceQuota({
      namespace,
      body: {
        metadata: { name: 'team-gpus' },
        spec: {
          hard: {
            'requests.vke.volcengine.com/mgpu-core': '400',
            'requests.vke.volcengine.com/mgpu-memory': '65536',
          },
        },
      },
    });
    await eventually('the quota in cluster.quotas', async () => {
      const quotas = (await trpc('cluster.quotas')) as Array<{ namespace: string; name: string }>;
      return quotas.find((quota) => quota.namespace === namespace && quota.name === 'team-gpus');
    });

    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('mgpu_card_instances');
  }, 120_000);
});
