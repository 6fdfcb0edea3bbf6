/**
 * `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: the one authorization call the
 * console makes for an operator (its filtered reads ask "may I list pods in N", "may I list
 * nodes"). This server has a single bearer token (transport.ts) and no RBAC, so whoever got past
 * the transport may do everything: the honest answer is `allowed: true`, for every question.
 * The review is echoed back as kube-apiserver does (spec as sent, status filled in). Per-user
 * denials are tested against the real tier, which has RBAC.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeBody } from './request-body.js';
import { sendJson } from './responses.js';
import { badRequest } from './status.js';

export const SELF_SUBJECT_ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

export function selfSubjectAccessReview(request: FastifyRequest, reply: FastifyReply) {
  const { body } = decodeBody(request, 'object');
  const review = body as { kind?: unknown; spec?: Record<string, unknown> } | null;
  if (typeof review !== 'object' || review === null || review.kind !== 'SelfSubjectAccessReview')
    throw badRequest('the body must be an authorization.k8s.io/v1 SelfSubjectAccessReview');
  const spec = review.spec ?? {};
  if (!spec.resourceAttributes && !spec.nonResourceAttributes)
    throw badRequest('spec.resourceAttributes or spec.nonResourceAttributes is required');
  return sendJson(reply, 201, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec,
    status: {
      allowed: true,
      reason: 'the embedded API server has one token and no RBAC: its holder may do anything',
    },
  });
}
