/**
 * A node's verdict as a rejection without its group: a language-free code, the parameters its
 * messages need, and the English words for the scheduler's Events.
 */
import {
  REJECTION_REASON,
  type RejectionCode,
  type RejectionParams,
  type RejectionParamsOf,
  rejectionMessage,
} from './rejections.js';
import type { NodeState, Rejection } from './types.js';

export type NodeVerdict = Omit<Rejection, 'group' | 'nodes'>;

/**
 * A verdict with its code, parameters (exactly those its messages need) and English words;
 * built only when explaining.
 */
export function verdict<Code extends RejectionCode>(
  code: Code,
  ...[params]: keyof RejectionParamsOf<Code> extends never ? [] : [RejectionParamsOf<Code>]
): NodeVerdict {
  // Typed per code above; the carried parameters are the wire's one shape for every code.
  const given: RejectionParams = params ?? {};
  return {
    reason: REJECTION_REASON[code],
    code,
    params: given,
    message: rejectionMessage<RejectionCode>(code, given),
  };
}

/** The fast pass only needs to know that a node is out; words come in a second pass. */
export const UNEXPLAINED: NodeVerdict = {
  reason: 'invalid',
  code: 'pod-invalid',
  params: {},
  message: '',
};

/** A node without the asked-for model: no model label at all, or another model. */
export function modelVerdict(node: NodeState, model: string): NodeVerdict {
  return node.model === undefined
    ? verdict('model-missing', { model })
    : verdict('model', { nodeModel: node.model, model });
}
