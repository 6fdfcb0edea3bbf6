export * from './demand.js';
export * from './node-state.js';
export * from './place-pod.js';
export * from './ranking.js';
export * from './rejections.js';
export * from './types.js';
