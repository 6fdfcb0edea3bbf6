import type { ClusterClient } from '@mgpu/api';
import { type ClusterConnection, describeSource } from '@mgpu/api';
import type { FastifyInstance } from 'fastify';

/**
 * `/healthz` (the process answers) and `/readyz` (the cluster answers within 2 s, and the
 * sign-outs other replicas made are known here: a replica that could not read them yet is sent
 * no operator, or it would accept their signed-out cookies).
 */
export function registerHealth(
  app: FastifyInstance,
  cluster: ClusterClient,
  source: ClusterConnection['source'],
  signOutsKnown: () => boolean,
): void {
  app.get('/healthz', async () => ({ ok: true }));
  app.get('/readyz', async (_request, reply) => {
    if (!signOutsKnown())
      return reply.code(503).send({
        ready: false,
        reason: 'the sign-outs of the other replicas could not be read from the cluster yet',
      });
    try {
      const version = await Promise.race([
        cluster.version(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('timed out after 2 s')), 2000),
        ),
      ]);
      return { ready: true, cluster: describeSource(source), version: version.gitVersion };
    } catch (error) {
      return reply
        .code(503)
        .send({ ready: false, reason: error instanceof Error ? error.message : String(error) });
    }
  });
}
