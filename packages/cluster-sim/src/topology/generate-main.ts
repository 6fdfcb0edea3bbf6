/**
 * Prints a generated topology as YAML, for `sim --topology`:
 * `tsx --conditions=source src/topology/generate-main.ts --nodes 1000 --cards 8 [--mixed] > big.yaml`
 */
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { generateTopology } from './generate.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    cards: { type: 'string', default: '8' },
    mixed: { type: 'boolean', default: false },
  },
});
const nodes = Number(values.nodes);
const cardsPerNode = Number(values.cards);
if (!Number.isInteger(nodes) || nodes < 1 || !Number.isInteger(cardsPerNode) || cardsPerNode < 1) {
  console.error('--nodes and --cards take whole numbers ≥ 1');
  process.exit(2);
}
process.stdout.write(
  stringify(generateTopology({ nodes, cardsPerNode, mix: values.mixed ? 'mixed' : 'uniform' })),
);
