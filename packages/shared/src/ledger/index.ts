export * from './book.js';
export * from './claim.js';
export * from './mgpu-node.js';
export * from './read-pod.js';
