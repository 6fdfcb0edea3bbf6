/**
 * Discovery (/api, /apis, group versions) and the OpenAPI v3 documents, derived from the
 * resource table. kubectl needs the OpenAPI v3 PATCH operations with the `fieldValidation`
 * parameter to know the server validates fields itself (else it fails before sending).
 */
import { createHash } from 'node:crypto';
import { apiGroups, apiVersionOf, RESOURCES, type ResourceDefinition } from './resource-table.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.3-mgpu-sim',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-03-11T00:00:00Z',
  goVersion: 'go1.23.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const ALL_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(name: string, versions: string[]): object {
  const groupVersions = versions.map((version) => ({
    groupVersion: `${name}/${version}`,
    version,
  }));
  return { name, versions: groupVersions, preferredVersion: groupVersions[0] };
}

export function apiGroupList(): object {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: apiGroups().map(({ name, versions }) => apiGroup(name, versions)),
  };
}

export function apiGroupDocument(group: string): object | undefined {
  const found = apiGroups().find((candidate) => candidate.name === group);
  if (!found) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(found.name, found.versions) };
}

function definitionsOf(group: string, version: string): ResourceDefinition[] {
  return RESOURCES.filter(
    (definition) => definition.group === group && definition.version === version,
  );
}

function storageVersionHash(definition: ResourceDefinition): string {
  return createHash('sha256')
    .update(`${apiVersionOf(definition)}/${definition.kind}`)
    .digest('base64')
    .slice(0, 11);
}

export function apiResourceList(group: string, version: string): object | undefined {
  const definitions = definitionsOf(group, version);
  if (definitions.length === 0) return undefined;
  const resources: object[] = [];
  if (group === '') {
    resources.push({
      name: 'bindings',
      singularName: 'binding',
      namespaced: true,
      kind: 'Binding',
      verbs: ['create'],
    });
  }
  for (const definition of definitions) {
    resources.push({
      name: definition.plural,
      singularName: definition.singular,
      namespaced: definition.namespaced,
      kind: definition.kind,
      verbs: ALL_VERBS,
      ...(definition.shortNames.length > 0 ? { shortNames: definition.shortNames } : {}),
      ...(definition.categories.length > 0 ? { categories: definition.categories } : {}),
      storageVersionHash: storageVersionHash(definition),
    });
    if (definition.bindingSubresource) {
      resources.push({
        name: `${definition.plural}/binding`,
        singularName: '',
        namespaced: definition.namespaced,
        kind: 'Binding',
        verbs: ['create'],
      });
    }
    if (definition.scaleSubresource) {
      resources.push({
        name: `${definition.plural}/scale`,
        singularName: '',
        namespaced: definition.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: SUBRESOURCE_VERBS,
      });
    }
    if (definition.statusSubresource) {
      resources.push({
        name: `${definition.plural}/status`,
        singularName: '',
        namespaced: definition.namespaced,
        kind: definition.kind,
        verbs: SUBRESOURCE_VERBS,
      });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

/** "api/v1", "apis/apps/v1": the keys of the OpenAPI v3 root document. */
function groupVersionPaths(): { path: string; group: string; version: string }[] {
  const seen = new Map<string, { path: string; group: string; version: string }>();
  for (const definition of RESOURCES) {
    const path = definition.group
      ? `apis/${definition.group}/${definition.version}`
      : `api/${definition.version}`;
    seen.set(path, { path, group: definition.group, version: definition.version });
  }
  return [...seen.values()];
}

const queryParameter = (name: string): object => ({
  name,
  in: 'query',
  description: name,
  schema: { type: 'string', uniqueItems: true },
});

function operation(definition: ResourceDefinition, action: string, parameters: string[]): object {
  return {
    tags: [definition.group || 'core'],
    operationId: `${action}${definition.kind}`,
    parameters: parameters.map(queryParameter),
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': {
      group: definition.group,
      version: definition.version,
      kind: definition.kind,
    },
  };
}

export function openApiDocument(group: string, version: string): object | undefined {
  const definitions = definitionsOf(group, version);
  if (definitions.length === 0) return undefined;
  const paths: Record<string, object> = {};
  for (const definition of definitions) {
    const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const collection = definition.namespaced
      ? `${prefix}/namespaces/{namespace}/${definition.plural}`
      : `${prefix}/${definition.plural}`;
    const writeParameters = ['dryRun', 'fieldManager', 'fieldValidation', 'pretty'];
    paths[collection] = {
      get: operation(definition, 'list', [
        'labelSelector',
        'fieldSelector',
        'limit',
        'continue',
        'resourceVersion',
        'watch',
      ]),
      post: operation(definition, 'post', writeParameters),
      delete: operation(definition, 'deletecollection', [
        'dryRun',
        'propagationPolicy',
        'labelSelector',
        'fieldSelector',
      ]),
    };
    const item = `${collection}/{name}`;
    paths[item] = {
      get: operation(definition, 'get', ['pretty']),
      put: operation(definition, 'put', writeParameters),
      patch: operation(definition, 'patch', [...writeParameters, 'force']),
      delete: operation(definition, 'delete', [
        'dryRun',
        'propagationPolicy',
        'gracePeriodSeconds',
      ]),
    };
    if (definition.statusSubresource) {
      paths[`${item}/status`] = {
        get: operation(definition, 'get', ['pretty']),
        put: operation(definition, 'put', writeParameters),
        patch: operation(definition, 'patch', [...writeParameters, 'force']),
      };
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths,
    components: { schemas: {} },
  };
}

export function openApiRoot(): { paths: Record<string, { serverRelativeURL: string }> } {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const { path, group, version } of groupVersionPaths()) {
    const hash = createHash('sha512')
      .update(JSON.stringify(openApiDocument(group, version)))
      .digest('hex')
      .slice(0, 128)
      .toUpperCase();
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { paths };
}
