import { z } from 'zod';

/**
 * `cluster.namespaces`: the namespaces the operator may see workloads in (where they may
 * `list pods`, spec §8), sorted: the list's and the form's namespace choice.
 */
export const ClusterNamespacesSchema = z.array(z.string());
