export { type ApiServer, type ApiServerOptions, startApiServer } from './apiserver/api-server.js';
export type { KubeObject, ObjectMeta, OwnerReference } from './apiserver/kube-object.js';
export { ObjectStore } from './apiserver/object-store.js';
export { DEFAULT_NAMESPACES, Registry } from './apiserver/registry.js';
export {
  apiVersionOf,
  findResource,
  findResourceByKind,
  RESOURCES,
  type ResourceDefinition,
} from './apiserver/resource-table.js';
export { ApiError, type StatusCause, type StatusObject } from './apiserver/status.js';
export type { ServingCertificate } from './apiserver/transport.js';
export * from './controllers/index.js';
export {
  authorizationFor,
  type EmbeddedApi,
  type EmbeddedCluster,
  type EmbeddedClusterOptions,
  type EmbeddedGpuMetrics,
  kubeConfigFor,
  kubeConfigForClients,
  startEmbeddedCluster,
} from './embedded.js';
export { exporterText } from './gpu-usage/exporter-text.js';
export { whenLauncherExits } from './launchers.js';
export * from './topology/index.js';
