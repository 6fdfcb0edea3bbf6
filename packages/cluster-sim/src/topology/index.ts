export * from './generate.js';
export * from './topology.js';
