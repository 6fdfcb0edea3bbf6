export * from './bearer.js';
export * from './clients.js';
export * from './errors.js';
export * from './informer.js';
export * from './informer-factory.js';
export * from './kube-config.js';
export * from './leader-election.js';
export * from './pod-log.js';
