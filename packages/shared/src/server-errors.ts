import { type Translate, translator } from './i18n.js';
import {
  type ConsoleErrorCode,
  consoleCodeOf,
  type ForbiddenAction,
  forbiddenActionOf,
  type KubeStatus,
  kubeFailureOf,
} from './kube-failure.js';
import type { WorkloadRequest } from './request.js';
import type { Lang, RuleError } from './rules.js';
import { VKE } from './vke.js';

/**
 * When the API server refuses what the rules allowed, its answer is put onto the form's fields:
 * a Status cause's `field` (an object path) becomes a request path, and the refusal a rule id.
 */
export const SERVER_RULES = [
  'name-taken',
  'namespace-not-found',
  'kubernetes-invalid',
  'forbidden',
  'cluster-unavailable',
  'client-request-reused',
  'not-managed',
  'conflict',
  'immutable-field',
  'kind-ambiguous',
  'cluster-not-synced',
  'statefulset-service',
  'revision-not-found',
  'container-not-found',
] as const;
export type ServerRule = (typeof SERVER_RULES)[number];

export interface ServerRuleError extends Omit<RuleError, 'rule'> {
  rule: ServerRule;
}

/** The most characters of one value a client sent that an error message quotes back. */
export const MAX_ECHOED_INPUT = 64;

/**
 * A value the client sent, as an error message quotes it: cut to MAX_ECHOED_INPUT characters
 * with an ellipsis, so an answer never carries back a page of whatever was sent. Every server
 * rule's text quotes client input only through this (`describeServerError`).
 */
export function echoInput(value: string): string {
  const characters = Array.from(value);
  return characters.length > MAX_ECHOED_INPUT
    ? `${characters.slice(0, MAX_ECHOED_INPUT).join('')}…`
    : value;
}

/** The request path of an object field (`spec.template.spec.containers[0].image` → `containers.0.image`); '' for the form as a whole. */
export function requestPathOfObjectField(
  field: string | undefined,
  request: WorkloadRequest,
): string {
  if (!field) return '';
  const normalized = field.replace(/\[(\d+)\]/g, '.$1');
  const direct: Record<string, string> = {
    'metadata.name': 'name',
    'metadata.namespace': 'namespace',
    'spec.replicas': 'replicas',
    'spec.template.spec.containers': 'containers',
  };
  if (direct[normalized] !== undefined) return direct[normalized];
  const container = /^spec\.template\.spec\.containers\.(\d+)(?:\.(.*))?$/.exec(normalized);
  if (container) {
    const [, index, rest = ''] = container;
    if (rest === 'name' || rest === 'image') return `containers.${index}.${rest}`;
    if (rest.includes(VKE.coreResource)) return `containers.${index}.gpu.compute`;
    if (rest.includes(VKE.memoryResource)) return `containers.${index}.gpu.memoryGiB`;
    if (rest.includes(VKE.nvidiaResource)) return `containers.${index}.gpu.cards`;
    return `containers.${index}`;
  }
  if (normalized.includes(VKE.computePolicyAnnotation)) return 'computePolicy';
  const multiCard = normalized.indexOf(VKE.multiCardAnnotationPrefix);
  if (multiCard >= 0) {
    const name = normalized
      .slice(multiCard + VKE.multiCardAnnotationPrefix.length)
      .replace(/["'\]]+$/, '');
    const index = request.containers.findIndex((c) => c.name === name);
    if (index >= 0) return `containers.${index}.gpu.cards`;
  }
  if (
    normalized.includes(VKE.defaultModelLabel) ||
    normalized.startsWith('spec.template.spec.affinity')
  ) {
    const index = request.containers.findIndex((c) => c.gpu?.model);
    if (index >= 0) return `containers.${index}.gpu.model`;
  }
  return '';
}

/**
 * The server rules' messages, on the console's one i18n mechanism (`i18n.ts`): each a function
 * of the API server's detail and the request; both languages are typed by this.
 */
type ServerRuleCatalog = {
  readonly [R in ServerRule]: (params: {
    detail: string;
    request: WorkloadRequest;
    /** An RBAC refusal's verb, resource and namespace (rule `forbidden`). */
    action?: ForbiddenAction;
    /** What the client sent that the text quotes back, already cut by `echoInput`. */
    sent: string;
  }) => {
    message: string;
    fix?: string;
  };
};

const english: ServerRuleCatalog = {
  'name-taken': ({ request: r }) => ({
    message: `A Deployment named "${r.name}" already exists in namespace "${r.namespace}".`,
    fix: 'Choose another name, or delete the existing Deployment first.',
  }),
  'namespace-not-found': ({ request: r }) => ({
    message: `Namespace "${r.namespace}" does not exist in the cluster.`,
    fix: 'Choose an existing namespace, or create it first.',
  }),
  'kubernetes-invalid': ({ detail }) => ({
    message: `The Kubernetes API refused the object: ${detail}`,
  }),
  forbidden: ({ detail, action: a }) =>
    a
      ? {
          message: `Kubernetes RBAC refused: "${a.user}" may not ${a.verb} ${a.resource}${a.namespace ? ` in namespace "${a.namespace}"` : ' cluster-wide'}. Nothing was changed.`,
          fix: `Choose a namespace you may ${a.verb} ${a.resource} in, or ask a cluster administrator for a RoleBinding that allows it.`,
        }
      : {
          message: `Kubernetes refused this request: ${detail}`,
          fix: 'Ask a cluster administrator for permission to do this in this namespace.',
        },
  'cluster-unavailable': ({ detail }) => ({
    message: `The Kubernetes API did not answer: ${detail}`,
    fix: 'Try again in a moment; nothing was created.',
  }),
  'client-request-reused': ({ detail }) => ({
    message: `This submission id already made another workload (${detail}).`,
    fix: 'Submit the form again: a changed request gets a new id.',
  }),
  'not-managed': ({ detail, request: r }) => ({
    message: `${detail || 'Workload'} "${r.namespace}/${r.name}" was not created by this console (no label app.kubernetes.io/managed-by: mgpu-console); nothing was changed.`,
    fix: 'Change it with kubectl, or confirm that the console may change it and send the same request again with "force": true.',
  }),
  conflict: ({ detail, request: r, sent }) => ({
    message: `"${r.namespace}/${r.name}" changed in the cluster after you opened it (${sent ? `resourceVersion ${sent} → ` : ''}${detail}); nothing was changed.`,
    fix: 'Reload the live object, check what changed, and apply your edits again.',
  }),
  'immutable-field': ({ detail }) => ({
    message: `Kubernetes does not allow this field to change on an existing object: ${detail}`,
    fix: 'Change it back, or create a new workload with the new value (and delete the old one).',
  }),
  'kind-ambiguous': ({ detail, request: r }) => ({
    message: `More than one workload is named "${r.namespace}/${r.name}" (${detail}); nothing was deleted.`,
    fix: `Send the delete again with "kind" set to the one you mean (${detail}).`,
  }),
  'cluster-not-synced': ({ detail }) => ({
    message: `The console has not read the cluster's nodes yet${detail ? ` (${detail})` : ''}, so it cannot check this against what the cluster holds; nothing was changed.`,
    fix: 'Try again in a moment.',
  }),
  'statefulset-service': ({ detail, request: r }) => ({
    message: `Service "${r.namespace}/${r.name}" already exists and ${detail === 'not-headless' ? 'is not headless (it has a cluster IP)' : 'selects other pods'}: it cannot be this StatefulSet's headless Service; nothing was created.`,
    fix: `Choose another name, or delete that Service first (kubectl delete service ${r.name} -n ${r.namespace}).`,
  }),
  'revision-not-found': ({ detail, request: r }) => ({
    message: `"${r.namespace}/${r.name}" keeps no revision ${detail}; nothing was changed.`,
    fix: 'Reload the history and choose one of the revisions it lists.',
  }),
  // A pod's own container names are what one may ask a log of (`pod.logs`): detail lists them.
  'container-not-found': ({ detail, request: r, sent }) => ({
    message: `Pod "${r.namespace}/${r.name}" has no container "${sent}".`,
    fix: `Choose one of its containers: ${detail || '(none)'}.`,
  }),
};

const chinese: ServerRuleCatalog = {
  'name-taken': ({ request: r }) => ({
    message: `命名空间“${r.namespace}”中已存在名为“${r.name}”的 Deployment。`,
    fix: '请换一个名称，或先删除已有的 Deployment。',
  }),
  'namespace-not-found': ({ request: r }) => ({
    message: `集群中不存在命名空间“${r.namespace}”。`,
    fix: '请选择已有的命名空间，或先创建它。',
  }),
  'kubernetes-invalid': ({ detail }) => ({ message: `Kubernetes API 拒绝了该对象：${detail}` }),
  forbidden: ({ detail, action: a }) =>
    a
      ? {
          message: `Kubernetes RBAC 拒绝了该操作：“${a.user}”无权${a.namespace ? `在命名空间“${a.namespace}”中` : '在整个集群范围内'}对 ${a.resource} 执行 ${a.verb}。没有做任何更改。`,
          fix: `请选择您有权对 ${a.resource} 执行 ${a.verb} 的命名空间，或请集群管理员添加允许该操作的 RoleBinding。`,
        }
      : {
          message: `Kubernetes 拒绝了该请求：${detail}`,
          fix: '请联系集群管理员授予在该命名空间中执行此操作的权限。',
        },
  'cluster-unavailable': ({ detail }) => ({
    message: `Kubernetes API 没有响应：${detail}`,
    fix: '请稍后重试；没有创建任何对象。',
  }),
  'client-request-reused': ({ detail }) => ({
    message: `该提交编号已经创建过另一个工作负载（${detail}）。`,
    fix: '请重新提交表单：修改后的请求会得到新的编号。',
  }),
  'not-managed': ({ detail, request: r }) => ({
    message: `${detail || '工作负载'}“${r.namespace}/${r.name}”不是由本控制台创建的（没有标签 app.kubernetes.io/managed-by: mgpu-console）；没有做任何更改。`,
    fix: '请用 kubectl 修改它，或确认允许控制台修改后以 "force": true 再次发送同一请求。',
  }),
  conflict: ({ detail, request: r, sent }) => ({
    message: `“${r.namespace}/${r.name}”在您打开后已在集群中被修改（${sent ? `resourceVersion ${sent} → ` : ''}${detail}）；没有做任何更改。`,
    fix: '请重新加载集群中的最新对象，查看变化后再次应用您的修改。',
  }),
  'immutable-field': ({ detail }) => ({
    message: `Kubernetes 不允许修改已有对象的该字段：${detail}`,
    fix: '请改回原值，或用新值创建一个新的工作负载（并删除旧的）。',
  }),
  'kind-ambiguous': ({ detail, request: r }) => ({
    message: `名为“${r.namespace}/${r.name}”的工作负载不止一个（${detail}）；没有删除任何对象。`,
    fix: `请在删除请求中用 "kind" 指明要删除的那一个（${detail}）后重试。`,
  }),
  'cluster-not-synced': ({ detail }) => ({
    message: `控制台尚未读取到集群的节点${detail ? `（${detail}）` : ''}，无法按集群的容量检查该操作；没有做任何更改。`,
    fix: '请稍后重试。',
  }),
  'statefulset-service': ({ detail, request: r }) => ({
    message: `Service“${r.namespace}/${r.name}”已存在，且${detail === 'not-headless' ? '不是 headless Service（它有 cluster IP）' : '选择的是其他 Pod'}：不能作为该 StatefulSet 的 headless Service；没有创建任何对象。`,
    fix: `请换一个名称，或先删除该 Service（kubectl delete service ${r.name} -n ${r.namespace}）。`,
  }),
  'revision-not-found': ({ detail, request: r }) => ({
    message: `“${r.namespace}/${r.name}”没有保留版本 ${detail}；没有做任何更改。`,
    fix: '请刷新历史版本，从列出的版本中选择。',
  }),
  'container-not-found': ({ detail, request: r, sent }) => ({
    message: `Pod“${r.namespace}/${r.name}”中没有容器“${sent}”。`,
    fix: `请从它的容器中选择一个：${detail || '（无）'}。`,
  }),
};

const SERVER_RULE_TEXT: Record<Lang, Translate<ServerRuleCatalog>> = {
  en: translator<ServerRuleCatalog>(english),
  'zh-CN': translator<ServerRuleCatalog>(chinese),
};

/**
 * The sentence for an API server that did not answer a read or a delete (no form to put it on);
 * `detail` is the network error.
 */
export const clusterUnavailableMessage = (detail: string, lang: Lang = 'en'): string =>
  SERVER_RULE_TEXT[lang]('cluster-unavailable', { detail, request: NO_REQUEST, sent: '' }).message;

/** The texts that read only their detail are given this for a request. */
const NO_REQUEST: WorkloadRequest = { name: '', namespace: '', replicas: 1, containers: [] };

/**
 * A server rule's error in `lang`. `detail` is the cluster's side (a Kubernetes message, the
 * live version); `sent` is what the client sent that the text quotes, cut here by `echoInput`.
 */
export function describeServerError(
  rule: ServerRule,
  path: string,
  detail: string,
  request: WorkloadRequest,
  lang: Lang,
  action?: ForbiddenAction,
  sent = '',
): ServerRuleError {
  return {
    path,
    rule,
    ...SERVER_RULE_TEXT[lang](rule, {
      detail,
      request,
      sent: echoInput(sent),
      ...(action ? { action } : {}),
    }),
  };
}

/**
 * A 403 (or 401) of any call as the form-level rule `forbidden`, naming the verb, resource and
 * namespace RBAC refused in the operator's language.
 */
export const describeForbidden = (
  status: KubeStatus,
  lang: Lang,
  request: WorkloadRequest = NO_REQUEST,
): ServerRuleError =>
  describeServerError('forbidden', '', status.message, request, lang, forbiddenActionOf(status));

/**
 * The API server's refusal of a create as the form shows it: each Status cause on the field it
 * names, under the rule its failure kind means, with the console's code for that failure.
 */
export function describeKubeRefusal(
  status: KubeStatus,
  request: WorkloadRequest,
  lang: Lang,
): { code: ConsoleErrorCode; errors: ServerRuleError[] } {
  const describe = (rule: ServerRule, path: string, detail: string) =>
    describeServerError(rule, path, detail, request, lang);
  const code = consoleCodeOf(status);
  switch (kubeFailureOf(status)) {
    case 'conflict':
      return { code, errors: [describe('name-taken', 'name', status.message)] };
    case 'forbidden':
    case 'unauthorized':
      return { code, errors: [describeForbidden(status, lang, request)] };
    case 'not-found':
      return { code, errors: [describe('namespace-not-found', 'namespace', status.message)] };
    case 'bad-request':
    case 'invalid': {
      const causes = status.causes.length > 0 ? status.causes : [{ message: status.message }];
      return {
        code,
        errors: causes.map((cause) =>
          describe(
            'kubernetes-invalid',
            requestPathOfObjectField(cause.field, request),
            `${cause.field ? `${cause.field}: ` : ''}${cause.message ?? status.message}`,
          ),
        ),
      };
    }
    default:
      // No answer, 429, 410 and 5xx: the cluster, not the request, is at fault.
      return { code, errors: [describe('cluster-unavailable', '', status.message)] };
  }
}
