export { type ApiServer, type ApiServerOptions, startApiServer } from './apiserver/api-server.js';
export type { KubeObject, ObjectMeta, OwnerReference } from './apiserver/kube-object.js';
export { ObjectStore } from './apiserver/object-store.js';
export { DEFAULT_NAMESPACES, Registry } from './apiserver/registry.js';
export {
  apiVersionOf,
  findResource,
  findResourceByKind,
  MGPU_GROUP,
  MGPU_VERSION,
  RESOURCES,
  type ResourceDefinition,
} from './apiserver/resource-table.js';
export { ApiError, type StatusCause, type StatusObject } from './apiserver/status.js';
export * from './controllers/index.js';
export {
  type EmbeddedCluster,
  type EmbeddedClusterOptions,
  kubeConfigFor,
  startEmbeddedCluster,
} from './embedded.js';
export * from './topology/index.js';
